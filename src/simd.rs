//! Runtime CPU-feature dispatch — the crate's only `unsafe` code.
//!
//! Hot kernels are written once, in safe Rust, as `#[inline(always)]` functions, and
//! compiled twice by [`dispatch!`]: for the baseline target, and inside a function with
//! `#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]` (x86-64-v3), where LLVM
//! turns `count_ones` into `popcnt` or a `vpshufb` popcount over 256-bit vectors,
//! `trailing_zeros` into `tzcnt`, and vectorizes the bitset loops. The accelerated copy is
//! called only after `is_x86_feature_detected!` has confirmed every one of those features
//! on the running CPU (cached after the first call). Without `std`, or on other
//! architectures, the baseline copy is used (it is what the tests compare against).

#[cfg(all(feature = "std", target_arch = "x86_64"))]
pub(crate) mod x86 {
    use core::sync::atomic::{AtomicU8, Ordering};

    /// 0: not yet detected, 1: baseline only, 2: x86-64-v3 features present.
    static LEVEL: AtomicU8 = AtomicU8::new(0);
    /// Tests force the baseline path with this (0: auto, 1: force baseline).
    static FORCE_BASELINE: AtomicU8 = AtomicU8::new(0);

    /// Whether the x86-64-v3 copies of the kernels may run on this CPU.
    #[inline]
    pub(crate) fn has_v3() -> bool {
        if FORCE_BASELINE.load(Ordering::Relaxed) == 1 {
            return false;
        }
        match LEVEL.load(Ordering::Relaxed) {
            2 => true,
            1 => false,
            _ => {
                let ok = std::is_x86_feature_detected!("avx2")
                    && std::is_x86_feature_detected!("bmi1")
                    && std::is_x86_feature_detected!("bmi2")
                    && std::is_x86_feature_detected!("popcnt")
                    && std::is_x86_feature_detected!("lzcnt");
                LEVEL.store(if ok { 2 } else { 1 }, Ordering::Relaxed);
                ok
            }
        }
    }

    /// Forces (or stops forcing) the baseline kernels, for tests comparing both paths.
    #[cfg(test)]
    pub(crate) fn force_baseline(force: bool) {
        FORCE_BASELINE.store(u8::from(force), Ordering::Relaxed);
    }
}

/// Defines `$name` calling `$body` (an `#[inline(always)]` safe function) either as
/// compiled for x86-64-v3 or for the baseline, depending on the running CPU.
macro_rules! dispatch {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty => $body:path;) => {
        $(#[$meta])*
        #[inline]
        #[allow(unsafe_code)]
        $vis fn $name($($arg: $ty),*) -> $ret {
            #[cfg(all(feature = "std", target_arch = "x86_64"))]
            if $crate::simd::x86::has_v3() {
                #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
                unsafe fn v3($($arg: $ty),*) -> $ret {
                    $body($($arg),*)
                }
                // SAFETY: `v3` only differs from `$body` in the target features it is
                // compiled with, and `has_v3` confirmed at run time that the CPU has every
                // one of them (avx2, bmi1, bmi2, popcnt, lzcnt).
                return unsafe { v3($($arg),*) };
            }
            $body($($arg),*)
        }
    };
}

pub(crate) use dispatch;

use crate::cast::U16;

/// `|a ∩ b|` for two sorted `u16` arrays with SSE (8×8 all-pairs block compares), or
/// `None` if the CPU lacks the features (the caller then merges in scalar code).
#[inline]
pub(crate) fn intersect_count_u16(a: &[U16], b: &[U16]) -> Option<u64> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed SSSE3/SSE4 (implied by AVX2) and POPCNT on this CPU.
        return Some(unsafe { x86_kernels::intersect_count_u16(a, b) });
    }
    let _ = (a, b);
    None
}

/// `|small ∩ large|` for sorted `u16` arrays where `large` is several times longer: each
/// value of `small` is looked up by scanning `large` 16 values per AVX2 compare from where
/// the previous lookup stopped. `None` if the CPU lacks AVX2 (the caller gallops instead).
#[inline]
pub(crate) fn scan_count_u16(small: &[U16], large: &[U16]) -> Option<u64> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed AVX2 and POPCNT on this CPU.
        return Some(unsafe { x86_kernels::scan_count_u16(small, large) });
    }
    let _ = (small, large);
    None
}

/// Appends `a ∩ b` (sorted `u16` arrays) to `out` with SSE block compares; `false` (and
/// nothing appended) if the CPU lacks the features (the caller then merges in scalar code).
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn intersect_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed SSSE3/SSE4 (implied by AVX2) and POPCNT on this CPU.
        unsafe { x86_kernels::intersect_u16(a, b, out) };
        return true;
    }
    let _ = (a, b, out);
    false
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
mod x86_kernels {
    use super::U16;
    use core::arch::x86_64::*;

    /// Loads `s[k..k + 8]` (unaligned).
    ///
    /// # Safety
    ///
    /// `k + 8 <= s.len()`, and the CPU supports SSE2 (every x86-64 CPU does).
    #[inline(always)]
    unsafe fn load8(s: &[U16], k: usize) -> __m128i {
        debug_assert!(k + 8 <= s.len());
        // SAFETY: the caller guarantees `k + 8 <= s.len()`, so the 16 bytes read lie inside
        // `s`; `_mm_loadu_si128` has no alignment requirement; `U16` is two plain bytes,
        // little-endian like the CPU.
        unsafe { _mm_loadu_si128(s.as_ptr().add(k).cast::<__m128i>()) }
    }

    /// See [`super::scan_count_u16`]. For each value `v` of `small`: compare `v` with the
    /// next 16 values of `large` (unsigned, via the sign-flip trick); if all are smaller,
    /// move on by 16, else move past the smaller ones (a prefix, as `large` is sorted) and
    /// test equality. Near the end of `large`, a scalar scan finishes.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn scan_count_u16(small: &[U16], large: &[U16]) -> u64 {
        let flip = _mm256_set1_epi16(i16::MIN);
        let (mut base, mut n) = (0usize, 0u64);
        'values: for v in small {
            let v = v.get();
            let needle = _mm256_set1_epi16((v ^ 0x8000) as i16);
            while base + 16 <= large.len() {
                // SAFETY: `base + 16 <= large.len()`, so the 32 bytes read lie inside
                // `large`; the load is unaligned; `U16` is two plain little-endian bytes.
                let block =
                    unsafe { _mm256_loadu_si256(large.as_ptr().add(base).cast::<__m256i>()) };
                let below = _mm256_cmpgt_epi16(needle, _mm256_xor_si256(block, flip));
                let mask = _mm256_movemask_epi8(below) as u32;
                if mask == u32::MAX {
                    base += 16;
                    continue;
                }
                // Fewer than 16 values are below `v`, so `base` stays inside `large`.
                base += (mask.count_ones() / 2) as usize;
                if large[base].get() == v {
                    n += 1;
                    base += 1;
                }
                continue 'values;
            }
            while base < large.len() && large[base].get() < v {
                base += 1;
            }
            if base == large.len() {
                break;
            }
            if large[base].get() == v {
                n += 1;
                base += 1;
            }
        }
        n
    }

    /// Block intersection (as [`intersect_count_u16`], appending the values): a value of
    /// `a` matches at most one value of `b`, and later blocks of `b` hold larger values, so
    /// matches come out in ascending order.
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx2,popcnt,bmi1")]
    pub(super) unsafe fn intersect_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
        out.reserve(a.len().min(b.len()));
        let (mut i, mut j) = (0usize, 0usize);
        if a.len() >= 8 && b.len() >= 8 {
            // SAFETY: both slices hold at least 8 values.
            let (mut va, mut vb) = unsafe { (load8(a, 0), load8(b, 0)) };
            loop {
                let mut m = _mm_cmpeq_epi16(va, vb);
                m = _mm_or_si128(m, _mm_cmpeq_epi16(va, _mm_alignr_epi8::<2>(vb, vb)));
                m = _mm_or_si128(m, _mm_cmpeq_epi16(va, _mm_alignr_epi8::<4>(vb, vb)));
                m = _mm_or_si128(m, _mm_cmpeq_epi16(va, _mm_alignr_epi8::<6>(vb, vb)));
                m = _mm_or_si128(m, _mm_cmpeq_epi16(va, _mm_alignr_epi8::<8>(vb, vb)));
                m = _mm_or_si128(m, _mm_cmpeq_epi16(va, _mm_alignr_epi8::<10>(vb, vb)));
                m = _mm_or_si128(m, _mm_cmpeq_epi16(va, _mm_alignr_epi8::<12>(vb, vb)));
                m = _mm_or_si128(m, _mm_cmpeq_epi16(va, _mm_alignr_epi8::<14>(vb, vb)));
                // Two mask bits per lane: keep the low one of each.
                let mut lanes = (_mm_movemask_epi8(m) as u32) & 0x5555;
                while lanes != 0 {
                    out.push(a[i + (lanes.trailing_zeros() / 2) as usize].get());
                    lanes &= lanes - 1;
                }
                let (amax, bmax) = (a[i + 7].get(), b[j + 7].get());
                if amax <= bmax {
                    i += 8;
                    if i + 8 > a.len() {
                        if amax == bmax {
                            j += 8;
                        }
                        break;
                    }
                    // SAFETY: `i + 8 <= a.len()` was just checked.
                    va = unsafe { load8(a, i) };
                }
                if bmax <= amax {
                    j += 8;
                    if j + 8 > b.len() {
                        break;
                    }
                    // SAFETY: `j + 8 <= b.len()` was just checked.
                    vb = unsafe { load8(b, j) };
                }
            }
        }
        // Scalar merge of what is left (never loaded together as blocks).
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i].get(), b[j].get());
            if x == y {
                out.push(x);
            }
            i += usize::from(x <= y);
            j += usize::from(y <= x);
        }
    }

    /// Block intersection count (Schlegel, Willhalm, Lehner; Lemire et al.): compare 8
    /// values of `a` with the 8 rotations of 8 values of `b`, count equal lanes, advance
    /// the block with the smaller maximum (both if equal); finish with a scalar merge.
    /// Values are unique within each array, so each equal pair is counted exactly once.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn intersect_count_u16(a: &[U16], b: &[U16]) -> u64 {
        let (mut i, mut j, mut n) = (0usize, 0usize, 0u64);
        if a.len() >= 8 && b.len() >= 8 {
            // SAFETY: both slices hold at least 8 values.
            let (mut va, mut vb) = unsafe { (load8(a, 0), load8(b, 0)) };
            loop {
                let mut m = _mm_cmpeq_epi16(va, vb);
                m = _mm_or_si128(m, _mm_cmpeq_epi16(va, _mm_alignr_epi8::<2>(vb, vb)));
                m = _mm_or_si128(m, _mm_cmpeq_epi16(va, _mm_alignr_epi8::<4>(vb, vb)));
                m = _mm_or_si128(m, _mm_cmpeq_epi16(va, _mm_alignr_epi8::<6>(vb, vb)));
                m = _mm_or_si128(m, _mm_cmpeq_epi16(va, _mm_alignr_epi8::<8>(vb, vb)));
                m = _mm_or_si128(m, _mm_cmpeq_epi16(va, _mm_alignr_epi8::<10>(vb, vb)));
                m = _mm_or_si128(m, _mm_cmpeq_epi16(va, _mm_alignr_epi8::<12>(vb, vb)));
                m = _mm_or_si128(m, _mm_cmpeq_epi16(va, _mm_alignr_epi8::<14>(vb, vb)));
                n += u64::from((_mm_movemask_epi8(m) as u32).count_ones() / 2);
                let (amax, bmax) = (a[i + 7].get(), b[j + 7].get());
                if amax <= bmax {
                    i += 8;
                    if i + 8 > a.len() {
                        if amax == bmax {
                            j += 8;
                        }
                        break;
                    }
                    // SAFETY: `i + 8 <= a.len()` was just checked.
                    va = unsafe { load8(a, i) };
                }
                if bmax <= amax {
                    j += 8;
                    if j + 8 > b.len() {
                        break;
                    }
                    // SAFETY: `j + 8 <= b.len()` was just checked.
                    vb = unsafe { load8(b, j) };
                }
            }
        }
        // Scalar merge of what is left (never loaded together as blocks).
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i].get(), b[j].get());
            n += u64::from(x == y);
            i += usize::from(x <= y);
            j += usize::from(y <= x);
        }
        n
    }
}
