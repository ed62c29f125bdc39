//! Runtime CPU-feature dispatch, the x86 SIMD kernels, and one inline-assembly step in two
//! forms (`bit_op`, and `bit_op_bmi2` where the CPU has BMI2): with the memory map of
//! `BitmapFile::open`, all of the crate's `unsafe` code. Three kinds live here, each block
//! with its `// SAFETY:` proof: calls of `#[target_feature]` functions after the run-time
//! check of those features; the x86 kernels (`x86_kernels`), whose intrinsics read and
//! write through raw pointers into slices whose lengths they check first; and the
//! assembly step, which sets a bit of a bitset at an index below its length.
//!
//! Hot kernels are written once, in safe Rust, as `#[inline(always)]` functions, and
//! compiled up to three times by [`dispatch!`]: for the baseline target, inside a function
//! with `#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]` (x86-64-v3), and, for
//! the kernels that gain from it, with AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ; there LLVM
//! turns `count_ones` into `popcnt` or a `vpshufb` popcount over 256-bit vectors,
//! `trailing_zeros` into `tzcnt`, and vectorizes the bitset loops. The accelerated copy is
//! called only after `is_x86_feature_detected!` has confirmed every one of those features
//! on the running CPU (cached after the first call). Without `std`, or on other
//! architectures, the baseline copy is used (it is what the tests compare against).

#[cfg(all(feature = "std", target_arch = "x86_64"))]
pub(crate) mod x86 {
    use core::sync::atomic::{AtomicU8, Ordering};

    /// 0: not yet detected, 1: baseline only, 2: x86-64-v3 features present, 3: those and
    /// AVX-512 F, BW, VL, VBMI2 (byte and 16-bit compress) and VPOPCNTDQ.
    static LEVEL: AtomicU8 = AtomicU8::new(0);
    /// Tests cap the level with this (0: auto, 1: baseline only, 2: no AVX-512).
    static CAP: AtomicU8 = AtomicU8::new(0);
    /// 0: not yet detected, 1: the CPU is AMD's, 2: another vendor's (set with `LEVEL`).
    static AMD: AtomicU8 = AtomicU8::new(0);

    /// The level of the x86-64-v3 kernels.
    pub(crate) const V3: u8 = 2;
    /// The level of the AVX-512 kernels.
    pub(crate) const V4: u8 = 3;

    /// The usable level (see `LEVEL`): two relaxed loads once detected.
    #[inline(always)]
    pub(crate) fn level() -> u8 {
        let level = match LEVEL.load(Ordering::Relaxed) {
            0 => detect(),
            l => l,
        };
        match CAP.load(Ordering::Relaxed) {
            0 => level,
            cap => level.min(cap),
        }
    }

    /// Whether the x86-64-v3 copies of the kernels may run on this CPU; inlined into every
    /// dispatch.
    #[inline(always)]
    pub(crate) fn has_v3() -> bool {
        level() >= V3
    }

    /// Whether the AVX-512 kernels (F, BW, VL, VBMI2 and VPOPCNTDQ, besides x86-64-v3) may
    /// run on this CPU.
    #[inline(always)]
    pub(crate) fn has_v4() -> bool {
        level() >= V4
    }

    /// Whether the CPU is AMD's (vendor string `AuthenticAMD`), for the kernels whose
    /// best form differs between AMD's AVX-512 (512-bit operations on 256-bit units) and
    /// Intel's.
    #[inline(always)]
    pub(crate) fn is_amd() -> bool {
        if AMD.load(Ordering::Relaxed) == 0 {
            detect();
        }
        AMD.load(Ordering::Relaxed) == 1
    }

    /// The first call: detects the features and caches the answer.
    #[cold]
    #[inline(never)]
    fn detect() -> u8 {
        // Leaf 0 is on every x86-64 CPU: the vendor string in EBX, EDX, ECX. (Miri runs
        // no inline assembly, which `__cpuid` is; there no vendor is AMD.)
        #[cfg(not(miri))]
        let amd = {
            let id = core::arch::x86_64::__cpuid(0);
            (id.ebx, id.edx, id.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163)
        };
        #[cfg(miri)]
        let amd = false;
        AMD.store(if amd { 1 } else { 2 }, Ordering::Relaxed);
        let v3 = std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("lzcnt");
        let v4 = v3
            && std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512vbmi2")
            && std::is_x86_feature_detected!("avx512vpopcntdq");
        let level = 1 + u8::from(v3) + u8::from(v4);
        LEVEL.store(level, Ordering::Relaxed);
        level
    }

    /// Caps the kernels' level, for tests comparing the paths: 0 lifts the cap, 1 forces
    /// the baseline kernels, 2 the x86-64-v3 ones where AVX-512 ones exist.
    #[cfg(test)]
    pub(crate) fn cap_level(cap: u8) {
        CAP.store(cap, Ordering::Relaxed);
    }
}

/// Defines `$name` calling `$body` (an `#[inline(always)]` safe function) as compiled for
/// AVX-512 (x86-64-v3 with AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ: Intel from Ice Lake,
/// AMD from its fourth Zen generation), for x86-64-v3, or for the baseline, depending on
/// the running CPU.
/// The AVX-512 copy differs by what the compiler makes of the wider vectors and vector
/// popcount (the bitset loops) and by the kernels that check [`x86::has_v4`] themselves.
/// With `wide if <condition on the arguments>`, it runs only where the condition holds
/// (the x86-64-v3 copy elsewhere): the AVX-512 copies of the pairwise kernels make small
/// array containers slower while bitsets gain (BENCHMARKS.md, design decisions).
macro_rules! dispatch {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty => $body:path $(, wide if $wide:expr)?;) => {
        $(#[$meta])*
        #[inline]
        #[allow(unsafe_code)]
        $vis fn $name($($arg: $ty),*) -> $ret {
            #[cfg(all(feature = "std", target_arch = "x86_64"))]
            {
                let level = $crate::simd::x86::level();
                if level >= $crate::simd::x86::V4 $(&& $wide)? {
                    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt,avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq")]
                    unsafe fn v4($($arg: $ty),*) -> $ret {
                        $body($($arg),*)
                    }
                    // SAFETY: `v4` only differs from `$body` in the target features it is
                    // compiled with, and the level, detected at run time, says that the CPU
                    // has every one of them.
                    return unsafe { v4($($arg),*) };
                }
                if level >= $crate::simd::x86::V3 {
                    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
                    unsafe fn v3($($arg: $ty),*) -> $ret {
                        $body($($arg),*)
                    }
                    // SAFETY: `v3` only differs from `$body` in the target features it is
                    // compiled with, and the level, detected at run time, says that the CPU
                    // has every one of them (avx2, bmi1, bmi2, popcnt, lzcnt).
                    return unsafe { v3($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}

pub(crate) use dispatch;

use crate::cast::U16;

/// What [`bit_op`] does to a value's bit.
#[cfg(feature = "alloc")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BitOp {
    /// Sets it (union).
    Set,
    /// Flips it (symmetric difference).
    Flip,
    /// Clears it (difference).
    Clear,
}

/// Sets, flips or clears bit `v` of `bits`: the inner step of setting an array's values
/// into a bitset. On x86-64 it is the word's load, a `bts` (`btc`, `btr`) on a register and
/// the store, as CRoaring's `bitset_set_list` does, which LLVM does not emit for
/// `*word |= 1 << (v & 63)` (it shifts, then ors into memory), and the step bounds the
/// many-way union of sparse arrays (BENCHMARKS.md). Elsewhere, and under Miri (which runs no
/// assembly), [`bit_op_portable`]. Where the CPU has BMI2, [`bit_op_bmi2`] is one
/// instruction shorter.
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) fn bit_op(bits: &mut [u64; crate::cast::BITSET_WORDS], v: u16, op: BitOp) {
    bit_step(bits, v, op, None);
}

/// Proof that the CPU has BMI2, for [`bit_op_bmi2`]: made only by [`Bmi2::detect`].
#[cfg(feature = "alloc")]
#[derive(Clone, Copy)]
pub(crate) struct Bmi2 {
    _checked: (),
}

#[cfg(feature = "alloc")]
impl Bmi2 {
    /// `Some` if the CPU has BMI2 (checked with the x86-64-v3 level, which the tests'
    /// caps lower, so that they reach [`bit_op`] too).
    #[inline(always)]
    pub(crate) fn detect() -> Option<Bmi2> {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        return x86::has_v3().then_some(Bmi2 { _checked: () });
        #[cfg(not(all(feature = "std", target_arch = "x86_64")))]
        None
    }
}

/// [`bit_op`] with the word index taken by BMI2's `shrx` (a three-operand shift: no copy
/// of the value first), one instruction of six fewer per value, in a loop bound by the
/// instructions it issues rather than by the wait for a word's previous store.
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) fn bit_op_bmi2(
    bmi2: Bmi2,
    bits: &mut [u64; crate::cast::BITSET_WORDS],
    v: u16,
    op: BitOp,
) {
    bit_step(bits, v, op, Some(bmi2));
}

/// [`bit_op`], or with `Some(bmi2)` [`bit_op_bmi2`] (a constant where it is inlined).
#[cfg(feature = "alloc")]
#[inline(always)]
fn bit_step(bits: &mut [u64; crate::cast::BITSET_WORDS], v: u16, op: BitOp, bmi2: Option<Bmi2>) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let words = bits.as_mut_ptr();
        let pos = u64::from(v);
        // The word index into `off` (by `shr`, or by BMI2's `shrx`), then the word's load,
        // the bit instruction and the store.
        macro_rules! load_bit_store {
            (shr, $bit:literal) => {
                load_bit_store!(@ "mov {off:e}, {pos:e}\nshr {off:e}, 6", $bit,)
            };
            (shrx, $bit:literal) => {
                load_bit_store!(@ "shrx {off:e}, {pos:e}, {six:e}", $bit, six = in(reg) 6u32,)
            };
            (@ $index:literal, $bit:literal, $($extra:tt)*) => {
                core::arch::asm!(
                    $index,
                    "mov {word}, qword ptr [{words} + {off} * 8]",
                    concat!($bit, " {word}, {pos}"),
                    "mov qword ptr [{words} + {off} * 8], {word}",
                    off = out(reg) _, word = out(reg) _,
                    pos = in(reg) pos, words = in(reg) words, $($extra)*
                    options(nostack),
                )
            };
        }
        macro_rules! by_op {
            ($index:ident) => {
                match op {
                    BitOp::Set => load_bit_store!($index, "bts"),
                    BitOp::Flip => load_bit_store!($index, "btc"),
                    BitOp::Clear => load_bit_store!($index, "btr"),
                }
            };
        }
        // SAFETY: `shrx` runs only with a `Bmi2`, which exists only once `Bmi2::detect`
        // found BMI2 on this CPU (through `is_x86_feature_detected!`). The word index is
        // `v >> 6` (the 32-bit shift of a value below 2^16 by 6), at most 1023, and `bits`
        // has 1024 words: the 8-byte load and store at `words + 8 × index` are inside
        // `bits`, aligned for `u64`, and `bits` is borrowed mutably, so nothing else reads
        // or writes that word meanwhile. The assembly touches no other memory and no
        // stack, writes only its two scratch registers and the flags (declared clobbered
        // by default), and the bit operand of a register `bts` is taken modulo 64.
        unsafe {
            match bmi2 {
                Some(_) => by_op!(shrx),
                None => by_op!(shr),
            }
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        let _ = bmi2;
        bit_op_portable(bits, v, op);
    }
}

/// [`bit_op`] in plain Rust (what the tests compare it with).
#[cfg(feature = "alloc")]
#[cfg_attr(all(target_arch = "x86_64", not(miri), not(test)), allow(dead_code))]
#[inline(always)]
pub(crate) fn bit_op_portable(bits: &mut [u64; crate::cast::BITSET_WORDS], v: u16, op: BitOp) {
    let (word, bit) = (&mut bits[usize::from(v >> 6)], 1u64 << (v & 63));
    match op {
        BitOp::Set => *word |= bit,
        BitOp::Flip => *word ^= bit,
        BitOp::Clear => *word &= !bit,
    }
}

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

/// Appends `small ∩ large` (sorted `u16` arrays, `large` several times longer) to `out`,
/// looking each value of `small` up as [`scan_count_u16`] does; `false` (and nothing
/// appended) if the CPU lacks AVX2 (the caller gallops instead).
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn scan_u16(small: &[U16], large: &[U16], out: &mut alloc::vec::Vec<u16>) -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed AVX2 and POPCNT on this CPU.
        unsafe { x86_kernels::scan_u16(small, large, out) };
        return true;
    }
    let _ = (small, large, out);
    false
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

/// Appends `a ∪ b` (sorted `u16` arrays) to `out` with SSE merge networks; `false` (and
/// nothing appended) if the CPU lacks the features.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn union_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F, BW and VBMI2, AVX2 and POPCNT on this CPU.
        unsafe { x86_kernels::union_u16_wide(a, b, out) };
        return true;
    }
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed SSSE3/SSE4.1 (implied by AVX2) and POPCNT on this CPU.
        unsafe { x86_kernels::union_u16(a, b, out) };
        return true;
    }
    let _ = (a, b, out);
    false
}

/// Appends `a − b` (sorted `u16` arrays) to `out` with SSE block compares; `false` (and
/// nothing appended) if the CPU lacks the features.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn difference_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed SSSE3/SSE4.1 (implied by AVX2) and POPCNT on this CPU.
        unsafe { x86_kernels::difference_u16(a, b, out) };
        return true;
    }
    let _ = (a, b, out);
    false
}

/// Appends `a ⊕ b` (sorted `u16` arrays) to `out` with SSE merge networks; `false` (and
/// nothing appended) if the CPU lacks the features.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn xor_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed SSSE3/SSE4.1 (implied by AVX2) and POPCNT on this CPU.
        unsafe { x86_kernels::xor_u16(a, b, out) };
        return true;
    }
    let _ = (a, b, out);
    false
}

/// The maximal runs of consecutive values in `values` (sorted `u16`s): one plus the
/// number of values that are not their predecessor plus one (0 for none). With AVX2,
/// 16 neighbours are compared per step and the breaks counted from the compare mask;
/// else [`crate::write::encode::count_slice_runs`].
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn count_runs_u16(values: &[U16]) -> u32 {
    // A few values are counted inline: the call to the AVX2 kernel cost 10 % of building
    // uscensus2000, whose arrays hold a few values each.
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if values.len() >= 32 && x86::has_v3() {
        // SAFETY: `has_v3` confirmed AVX2 and POPCNT on this CPU.
        return unsafe { x86_kernels::count_runs_u16_capped(values, u32::MAX) };
    }
    crate::write::encode::count_slice_runs(values, |v| v.get())
}

/// [`count_runs_u16`] as far as a canonical kind needs: exact when the runs are at most
/// `cap`, else some count above `cap` (the runs of a prefix). With AVX-512, 32 neighbours
/// per compare; with AVX2, 16; both stop at the first step past `cap`. The result of an
/// array union is most often an array with breaks at nearly every value, where half the
/// array already decides.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn count_runs_u16_capped(values: &[U16], cap: u32) -> u32 {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if values.len() >= 64 && x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F and BW, and POPCNT on this CPU.
        return unsafe { x86_kernels::count_runs_u16_capped_wide(values, cap) };
    }
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if values.len() >= 32 && x86::has_v3() {
        // SAFETY: `has_v3` confirmed AVX2 and POPCNT on this CPU.
        return unsafe { x86_kernels::count_runs_u16_capped(values, cap) };
    }
    let _ = cap;
    crate::write::encode::count_slice_runs(values, |v| v.get())
}

/// Writes the boundaries of the maximal runs of `values` into `dst`, 32 values per step
/// with AVX-512 (see `x86_kernels::array_runs_u16_wide`): each run's first value, then one
/// past its last (wrapping to 0 after 65535), as [`bitset_positions`] writes a bitset's;
/// returns how many it wrote, fewer if `dst` is too short.
/// [`crate::write::encode::array_runs_into`] turns them into runs. `None` (nothing written)
/// if the CPU lacks the features or `values` is short, where the caller's scalar loop is as
/// fast as the call.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn array_runs_u16(values: &[u16], dst: &mut [U16]) -> Option<usize> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if values.len() >= 32 && x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F, BW and VBMI2, BMI2 and POPCNT on this CPU.
        return Some(unsafe { x86_kernels::array_runs_u16_wide(values, dst) });
    }
    let _ = (values, dst);
    None
}

/// Writes the positions of the set bits of a bitset (its 8,192 little-endian bytes) or,
/// with `BOUNDARIES`, of its run boundaries (the set bits of `w ^ (w << 1 | carry)`,
/// `carry` the previous word's top bit) into `dst`, in increasing order, with AVX-512:
/// the words with a bit are first packed with their indices, 8 words per step, then
/// each one's positions are compressed out of a vector of all 64 and stored at once, with
/// no branch per word or per bit. Returns how many were written, stopping early where
/// `dst` has fewer than 64 slots past them (as [`crate::write::encode::flatten`] does), or
/// `None` if the CPU lacks the features or `bytes` is not 8,192 long.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn bitset_positions<const BOUNDARIES: bool>(
    bytes: &[u8],
    dst: &mut [U16],
) -> Option<usize> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        let bytes: &[u8; crate::cast::BITSET_BYTES] = bytes.try_into().ok()?;
        // SAFETY: `has_v4` confirmed AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ and POPCNT.
        return Some(unsafe { x86_kernels::bitset_positions::<BOUNDARIES>(bytes, dst) });
    }
    let _ = (bytes, dst);
    None
}

/// Slots of [`Packed`]'s buffers: one per word, and 8 of slack for the last step's
/// stores.
#[cfg(feature = "alloc")]
const PACKED_SLOTS: usize = crate::cast::BITSET_WORDS + 8;

/// A bitset's run boundaries, packed by [`bitset_stats_packed`] for
/// [`packed_positions`]: the words that hold one, each with its first position. Plain
/// integers (always initialized); 12 KiB, kept in a reused scratch.
#[cfg(feature = "alloc")]
// Read only by the AVX-512 kernels, which need `std` (for the feature detection).
#[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
pub(crate) struct Packed {
    words: [u64; PACKED_SLOTS],
    firsts: [u32; PACKED_SLOTS],
    /// How many words are packed.
    n: usize,
}

#[cfg(feature = "alloc")]
impl Packed {
    /// Nothing packed.
    pub(crate) fn new() -> alloc::boxed::Box<Packed> {
        alloc::boxed::Box::new(Packed {
            words: [0; PACKED_SLOTS],
            firsts: [0; PACKED_SLOTS],
            n: 0,
        })
    }
}

/// The set bits of a bitset (its 8,192 little-endian bytes) and its maximal runs of set
/// bits, counted in one pass with AVX-512, which also packs the words holding run
/// boundaries into `packed`, for [`packed_positions`] to write them out. `None` (and
/// `packed` untouched) if the CPU lacks the features or `bytes` is not 8,192 long.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn bitset_stats_packed(bytes: &[u8], packed: &mut Packed) -> Option<(u32, u32)> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        let bytes: &[u8; crate::cast::BITSET_BYTES] = bytes.try_into().ok()?;
        // SAFETY: `has_v4` confirmed AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ and POPCNT.
        return Some(unsafe { x86_kernels::bitset_stats_packed(bytes, packed) });
    }
    let _ = (bytes, packed);
    None
}

/// The maximal runs of set bits of a bitset (its 8,192 little-endian bytes), counted with
/// AVX-512 as far as `cap` needs, packing their boundaries into `packed` as
/// [`bitset_stats_packed`] does: `Some(runs)` with `packed` ready for
/// [`packed_positions`] if `runs <= cap`; else `Some` of a count above `cap` (the runs of a
/// prefix), `packed` not to be read. `None` if the CPU lacks the features or `bytes` is
/// not 8,192 long. For a result bitset whose canonical kind is not known yet: a run
/// container's boundaries come packed from the pass that finds it is one.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn bitset_runs_packed_capped(
    bytes: &[u8],
    cap: u32,
    packed: &mut Packed,
) -> Option<u32> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        let bytes: &[u8; crate::cast::BITSET_BYTES] = bytes.try_into().ok()?;
        // SAFETY: `has_v4` confirmed AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ and POPCNT.
        return Some(unsafe { x86_kernels::bitset_runs_packed_capped(bytes, cap, packed) });
    }
    let _ = (bytes, cap, packed);
    None
}

/// [`bitset_runs_packed_capped`] that counts the set bits too, from the same loads:
/// `Some((Some(card), runs))` with `packed` ready if `runs <= cap`; else `Some((None,
/// runs))` with a count above `cap`, the bits not all counted and `packed` not to be read.
/// `None` if the CPU lacks the features or `bytes` is not 8,192 long. For a result whose
/// cardinality is not known yet (the many-way union): one pass where a count and then
/// the capped packing took two.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn bitset_stats_packed_capped(
    bytes: &[u8],
    cap: u32,
    packed: &mut Packed,
) -> Option<(Option<u32>, u32)> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        let bytes: &[u8; crate::cast::BITSET_BYTES] = bytes.try_into().ok()?;
        // SAFETY: `has_v4` confirmed AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ and POPCNT.
        return Some(unsafe { x86_kernels::bitset_stats_packed_capped(bytes, cap, packed) });
    }
    let _ = (bytes, cap, packed);
    None
}

/// Writes the run boundaries that [`bitset_stats_packed`] packed, in increasing order,
/// into `dst` (as [`bitset_positions`] with `BOUNDARIES` would from the bitset); returns
/// how many, or `None` if the CPU lacks the features.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn packed_positions(packed: &Packed, dst: &mut [U16]) -> Option<usize> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ and POPCNT.
        return Some(unsafe { x86_kernels::packed_positions(packed, dst) });
    }
    let _ = (packed, dst);
    None
}

/// Sets the bits of the leading short runs of a run container in `bits`, eight runs a
/// vector with AVX-512: a run within one word (most, where runs are short) becomes a
/// word index and a mask in the vector, then one read-modify-write of that word; a run
/// across words is set by [`crate::write::encode::fill_bits`]. It stops after the first
/// eight runs of which fewer than five are within a word (long runs: the scalar fill is
/// as fast) or before the last `runs.len() % 8`. Returns how many runs it set, from the
/// first: 0 if the CPU lacks the features; the caller sets the rest. A run that ends past
/// 65535 (possible only in an unchecked view) is set as the scalar fill sets it.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn fill_runs_wide(
    bits: &mut [u64; crate::cast::BITSET_WORDS],
    runs: &[crate::cast::RunLE],
) -> usize {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F and VL (and AVX2, BMI2, POPCNT).
        return unsafe { x86_kernels::runs_wide::<false>(bits, runs, &mut 0) };
    }
    let _ = (bits, runs);
    0
}

/// The start of [`filter_by_runs`](crate::algebra::kernels)' merge, 32 values a step with
/// AVX-512: the values of the sorted array `a` inside (`IN`) or outside the runs `r` are
/// written to `dst` from index 0 on. Each step compares the next 32 values with the
/// current run and keeps those inside it (or those before it); it moves on to the next 32
/// values if all are within the run's end, else to the next run. Stops when fewer than 32
/// values or no run are left, and returns how far it got in `a`, in `r` and in `dst`
/// (`(0, 0, 0)` without AVX-512): the caller merges the rest. `dst` needs room for all of
/// `a` and 32 more. Values out of order (a corrupt payload) only give wrong values.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn filter_by_runs_wide<const IN: bool>(
    a: &[U16],
    r: &[crate::cast::RunLE],
    dst: &mut [u16],
) -> (usize, usize, usize) {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F, BW and VBMI2, and POPCNT on this CPU.
        return unsafe { x86_kernels::filter_by_runs_wide::<IN>(a, r, dst) };
    }
    let _ = (a, r, dst);
    (0, 0, 0)
}

/// Slots of [`Deferred`]: flushed once fewer than 8 are free.
#[cfg(feature = "alloc")]
const DEFERRED_SLOTS: usize = 128;

/// The second words of runs across two words, which [`fill_runs_wide_deferred`] leaves
/// to be ORed in later, all at once ([`Deferred::flush`]): a branch per such run, taken
/// about once in twelve runs on wikileaks and so mispredicted, cost the union of all
/// there more than the runs' other words together.
#[cfg(feature = "alloc")]
#[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
pub(crate) struct Deferred {
    words: [u64; DEFERRED_SLOTS],
    masks: [u64; DEFERRED_SLOTS],
    n: usize,
}

#[cfg(feature = "alloc")]
impl Deferred {
    /// Nothing deferred.
    #[inline(always)]
    pub(crate) fn new() -> Deferred {
        Deferred {
            words: [0; DEFERRED_SLOTS],
            masks: [0; DEFERRED_SLOTS],
            n: 0,
        }
    }

    /// ORs the deferred masks into `bits`.
    #[inline(always)]
    pub(crate) fn flush(&mut self, bits: &mut [u64; crate::cast::BITSET_WORDS]) {
        let n = self.n.min(DEFERRED_SLOTS);
        for (&w, &m) in self.words[..n].iter().zip(&self.masks[..n]) {
            bits[w as usize & (crate::cast::BITSET_WORDS - 1)] |= m;
        }
        self.n = 0;
    }

    /// [`flush`](Self::flush) out of line, for the fill's rare flush when full (which
    /// keeps the fill small enough to be inlined into its caller).
    #[cold]
    #[inline(never)]
    #[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
    fn flush_cold(&mut self, bits: &mut [u64; crate::cast::BITSET_WORDS]) {
        self.flush(bits);
    }
}

/// [`fill_runs_wide`] that sets a run across two words with a mask for each, the second
/// left in `defer` (flushed here when it fills up; the caller flushes the rest before
/// reading `bits`). Stops as [`fill_runs_wide`] does, counting runs across two words as
/// short ones.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn fill_runs_wide_deferred(
    bits: &mut [u64; crate::cast::BITSET_WORDS],
    runs: &[crate::cast::RunLE],
    defer: &mut Deferred,
) -> usize {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F and VL (and AVX2, BMI2, POPCNT).
        return unsafe { x86_kernels::runs_wide_deferred(bits, runs, defer) };
    }
    let _ = (bits, runs, defer);
    0
}

/// [`fill_runs_wide`] clearing the runs' bits instead of setting them: returns how many
/// runs it cleared and how many of their bits were set.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn clear_runs_wide(
    bits: &mut [u64; crate::cast::BITSET_WORDS],
    runs: &[crate::cast::RunLE],
) -> (usize, u32) {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        let mut cleared = 0;
        // SAFETY: `has_v4` confirmed AVX-512 F and VL (and AVX2, BMI2, POPCNT).
        let done = unsafe { x86_kernels::runs_wide::<true>(bits, runs, &mut cleared) };
        return (done, cleared);
    }
    let _ = (bits, runs);
    (0, 0)
}

/// Whether [`fill_runs_wide`] sets runs on this CPU.
#[cfg(all(test, feature = "alloc"))]
#[inline(always)]
pub(crate) fn has_fill_runs_wide() -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    return x86::has_v4();
    #[cfg(not(all(feature = "std", target_arch = "x86_64")))]
    return false;
}

/// Whether the union's run fills should use [`fill_runs_wide`]: where it has AVX-512, but
/// not on AMD, where it is slower than the scalar fill of two containers interleaved;
/// clearing runs (`clear_runs_wide`, the many-way difference) stays wide on both
/// (BENCHMARKS.md, design decisions).
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) fn prefer_fill_runs_wide() -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    return x86::has_v4() && !x86::is_amd();
    #[cfg(not(all(feature = "std", target_arch = "x86_64")))]
    return false;
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
mod x86_kernels {
    use super::U16;
    use core::arch::x86_64::*;

    /// Eight runs of a run container in 64-bit lanes (from [`run_lanes`]).
    struct RunLanes {
        /// Each run's last value, up to 131070 (past 65535 only in a corrupt payload).
        e: __m512i,
        /// The words of its first and last values (`we` up to 2047, likewise).
        ws: __m512i,
        we: __m512i,
        /// Its bits in its first word, and in its last word.
        first: __m512i,
        last: __m512i,
    }

    /// Eight runs as [`RunLanes`]: a run is `(start, length − 1)` as little-endian
    /// `u16`s, one `u32` lane widened to 64 bits.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx2,bmi2,popcnt")]
    fn run_lanes(chunk: &[crate::cast::RunLE; 8]) -> RunLanes {
        let (all, m63) = (_mm512_set1_epi64(-1), _mm512_set1_epi64(63));
        // SAFETY: the chunk is 8 runs of 4 bytes, 32 bytes, read unaligned.
        let x = _mm512_cvtepu32_epi64(unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) });
        let s = _mm512_and_si512(x, _mm512_set1_epi64(0xFFFF));
        let e = _mm512_add_epi64(s, _mm512_srli_epi64::<16>(x));
        RunLanes {
            e,
            ws: _mm512_srli_epi64::<6>(s),
            we: _mm512_srli_epi64::<6>(e),
            first: _mm512_sllv_epi64(all, _mm512_and_si512(s, m63)),
            last: _mm512_srlv_epi64(all, _mm512_sub_epi64(m63, _mm512_and_si512(e, m63))),
        }
    }

    /// See [`super::fill_runs_wide`] and [`super::clear_runs_wide`]: sets the runs' bits,
    /// or with `CLEAR` clears them, adding to `cleared` how many were set.
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F and VL, AVX2, BMI2 and POPCNT.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx2,bmi2,popcnt")]
    pub(super) unsafe fn runs_wide<const CLEAR: bool>(
        bits: &mut [u64; crate::cast::BITSET_WORDS],
        runs: &[crate::cast::RunLE],
        cleared: &mut u32,
    ) -> usize {
        let mut words = [0u64; 8];
        let mut masks = [0u64; 8];
        let mut done = 0;
        for chunk in runs.as_chunks::<8>().0 {
            let RunLanes {
                ws,
                we,
                first,
                last,
                ..
            } = run_lanes(chunk);
            let within = _mm512_cmpeq_epu64_mask(ws, we);
            // SAFETY: both arrays are 8 u64s, 64 bytes, stored unaligned.
            unsafe {
                _mm512_storeu_si512(words.as_mut_ptr().cast(), ws);
                let m = _mm512_maskz_and_epi64(within, first, last);
                _mm512_storeu_si512(masks.as_mut_ptr().cast(), m);
            }
            // A run across words has mask 0 here and is done below. `ws` is a start's
            // word, at most 65535 >> 6 (the mask only drops the bounds check).
            for (&w, &m) in words.iter().zip(&masks) {
                let word = &mut bits[w as usize & (crate::cast::BITSET_WORDS - 1)];
                if CLEAR {
                    *cleared += crate::write::encode::clear_word(word, m);
                } else {
                    *word |= m;
                }
            }
            let mut across = !within;
            while across != 0 {
                let r = &chunk[across.trailing_zeros() as usize];
                let (st, en) = (r.start() as u16, r.end() as u16);
                if CLEAR {
                    *cleared += crate::write::encode::clear_bits(bits, st, en);
                } else {
                    crate::write::encode::fill_bits(bits, st, en);
                }
                across &= across - 1;
            }
            done += 8;
            if within.count_ones() < 5 {
                break;
            }
        }
        done
    }

    /// See [`super::fill_runs_wide_deferred`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F and VL, AVX2, BMI2 and POPCNT.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx2,bmi2,popcnt")]
    pub(super) unsafe fn runs_wide_deferred(
        bits: &mut [u64; crate::cast::BITSET_WORDS],
        runs: &[crate::cast::RunLE],
        defer: &mut super::Deferred,
    ) -> usize {
        let one = _mm512_set1_epi64(1);
        let end = _mm512_set1_epi64(1 << 16);
        let mut words = [0u64; 8];
        let mut masks = [0u64; 8];
        let mut done = 0;
        // The deferred count in a register (`defer` is written back at the end).
        let mut at = defer.n;
        for chunk in runs.as_chunks::<8>().0 {
            let RunLanes {
                e,
                ws,
                we,
                first,
                last,
            } = run_lanes(chunk);
            let within = _mm512_cmpeq_epu64_mask(ws, we);
            // Across two words: the end's word is the next one, and inside the bitset.
            let two = _mm512_mask_cmpeq_epu64_mask(
                _mm512_cmplt_epu64_mask(e, end),
                _mm512_sub_epi64(we, ws),
                one,
            );
            if at > super::DEFERRED_SLOTS - 8 {
                defer.n = at;
                defer.flush_cold(bits);
                at = 0;
            }
            // SAFETY: both arrays are 8 u64s, 64 bytes, stored unaligned. `at <=
            // DEFERRED_SLOTS - 8` (flushed above otherwise), so the 8 lanes stored from
            // it lie inside both of its buffers; of them the first `popcount(two)` count.
            unsafe {
                _mm512_storeu_si512(words.as_mut_ptr().cast(), ws);
                let m = _mm512_maskz_and_epi64(within, first, last);
                let m = _mm512_mask_mov_epi64(m, two, first);
                _mm512_storeu_si512(masks.as_mut_ptr().cast(), m);
                _mm512_storeu_si512(
                    defer.words.as_mut_ptr().add(at).cast(),
                    _mm512_maskz_compress_epi64(two, we),
                );
                _mm512_storeu_si512(
                    defer.masks.as_mut_ptr().add(at).cast(),
                    _mm512_maskz_compress_epi64(two, last),
                );
            }
            at += two.count_ones() as usize;
            // A longer run has mask 0 here and is done below. `ws` is a start's word, at
            // most 65535 >> 6 (the mask only drops the bounds check).
            for (&w, &m) in words.iter().zip(&masks) {
                bits[w as usize & (crate::cast::BITSET_WORDS - 1)] |= m;
            }
            let short = within | two;
            let mut across = !short;
            while across != 0 {
                let r = &chunk[across.trailing_zeros() as usize];
                crate::write::encode::fill_bits(bits, r.start() as u16, r.end() as u16);
                across &= across - 1;
            }
            done += 8;
            if short.count_ones() < 5 {
                break;
            }
        }
        defer.n = at;
        done
    }

    /// See [`super::filter_by_runs_wide`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW and VBMI2, and POPCNT.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt")]
    pub(super) unsafe fn filter_by_runs_wide<const IN: bool>(
        a: &[U16],
        r: &[crate::cast::RunLE],
        dst: &mut [u16],
    ) -> (usize, usize, usize) {
        let (mut i, mut j, mut k) = (0, 0, 0);
        // Each step keeps at most the values it moves past (`keep` ⊆ `le`), so `k <= i`.
        while i + 32 <= a.len() && k + 32 <= dst.len() {
            let Some(run) = r.get(j) else { break };
            // Runs that end before the next value are skipped in scalar code (many runs
            // between values: census-income_srt's `and` 11 % faster so than a vector step
            // per run).
            if run.end() < u32::from(a[i].get()) {
                j += 1;
                continue;
            }
            // `end` is at most 65535 (`RunLE::end` cuts a corrupt run there).
            let (st, en) = (run.start() as u16, run.end() as u16);
            // SAFETY: `i + 32 <= a.len()`: the 64 bytes read lie inside `a`; unaligned.
            let v = unsafe { _mm512_loadu_si512(a.as_ptr().add(i).cast()) };
            let le = _mm512_cmple_epu16_mask(v, _mm512_set1_epi16(en as i16));
            let ge = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(st as i16));
            // Outside the runs: the values before this one (after the previous run).
            let keep = if IN { le & ge } else { le & !ge };
            let kept = _mm512_maskz_compress_epi16(keep, v);
            // SAFETY: `k + 32 <= dst.len()`: the 64 bytes written lie inside `dst`;
            // unaligned.
            unsafe { _mm512_storeu_si512(dst.as_mut_ptr().add(k).cast(), kept) };
            k += keep.count_ones() as usize;
            // Sorted values: those up to the run's end are a prefix of the 32.
            let past = le.count_ones() as usize;
            i += past;
            j += usize::from(past < 32);
        }
        (i, j, k)
    }

    /// See [`super::bitset_positions`]: [`pack`] into buffers on the stack, then
    /// [`unpack_grouped`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ, and POPCNT.
    // Not inlined: its 12 KiB of packed words and indices would otherwise enlarge (and
    // probe) the stack frame of every call of its callers (`emit`), whichever path they
    // take: census1881 `and`, with small array results, ran 1.7 times slower.
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    pub(super) unsafe fn bitset_positions<const BOUNDARIES: bool>(
        bytes: &[u8; crate::cast::BITSET_BYTES],
        dst: &mut [U16],
    ) -> usize {
        use core::mem::MaybeUninit;
        let mut words = MaybeUninit::<[u64; super::PACKED_SLOTS]>::uninit();
        let mut firsts = MaybeUninit::<[u32; super::PACKED_SLOTS]>::uninit();
        let (wp, ip) = (
            words.as_mut_ptr().cast::<u64>(),
            firsts.as_mut_ptr().cast::<u32>(),
        );
        // SAFETY: both buffers have `PACKED_SLOTS` slots (uninitialized memory may be
        // written); the CPU has the features (the caller's guarantee).
        let (n, _, _) = unsafe { pack::<BOUNDARIES, false>(bytes, wp, ip) };
        // SAFETY: `pack` wrote slots `..n` of both buffers.
        unsafe { unpack_grouped(wp, ip, n, dst) }
    }

    /// See [`super::bitset_stats_packed`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ, and POPCNT.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    pub(super) unsafe fn bitset_stats_packed(
        bytes: &[u8; crate::cast::BITSET_BYTES],
        packed: &mut super::Packed,
    ) -> (u32, u32) {
        let (wp, ip) = (packed.words.as_mut_ptr(), packed.firsts.as_mut_ptr());
        // SAFETY: both arrays have `PACKED_SLOTS` slots; the CPU has the features.
        let (n, card, boundaries) = unsafe { pack::<true, true>(bytes, wp, ip) };
        packed.n = n;
        // Two boundaries a run, but one for a run that reaches bit 65535 (its end would
        // be boundary 65536, past the words).
        let boundaries = boundaries + u32::from(bytes[crate::cast::BITSET_BYTES - 1] >> 7);
        (card, boundaries / 2)
    }

    /// See [`super::bitset_runs_packed_capped`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ, and POPCNT.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    pub(super) unsafe fn bitset_runs_packed_capped(
        bytes: &[u8; crate::cast::BITSET_BYTES],
        cap: u32,
        packed: &mut super::Packed,
    ) -> u32 {
        // SAFETY: the caller's guarantee.
        unsafe { packed_capped::<false>(bytes, cap, packed) }.1
    }

    /// See [`super::bitset_stats_packed_capped`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ, and POPCNT.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    pub(super) unsafe fn bitset_stats_packed_capped(
        bytes: &[u8; crate::cast::BITSET_BYTES],
        cap: u32,
        packed: &mut super::Packed,
    ) -> (Option<u32>, u32) {
        // SAFETY: the caller's guarantee.
        unsafe { packed_capped::<true>(bytes, cap, packed) }
    }

    /// The runs of a bitset counted as far as `cap` needs, their boundaries packed into
    /// `packed` if there are at most `cap` (else `packed` is emptied and the count is
    /// `cap + 1`), and with `STATS` its set bits counted in the same pass (`None` when
    /// the pass stopped early; `Some(0)` without `STATS`).
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ, and POPCNT.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    unsafe fn packed_capped<const STATS: bool>(
        bytes: &[u8; crate::cast::BITSET_BYTES],
        cap: u32,
        packed: &mut super::Packed,
    ) -> (Option<u32>, u32) {
        let (wp, ip) = (packed.words.as_mut_ptr(), packed.firsts.as_mut_ptr());
        // Boundaries above `2 cap` mean more than `cap` runs, whatever follows.
        let limit = cap.saturating_mul(2);
        // SAFETY: both arrays have `PACKED_SLOTS` slots; the CPU has the features.
        let (n, card, boundaries) =
            unsafe { pack_capped::<true, STATS, true>(bytes, wp, ip, limit) };
        if boundaries > limit {
            packed.n = 0;
            return (None, cap.saturating_add(1));
        }
        packed.n = n;
        // As in `bitset_stats_packed`: the end of a run reaching bit 65535 is not packed.
        let boundaries = boundaries + u32::from(bytes[crate::cast::BITSET_BYTES - 1] >> 7);
        (Some(card), boundaries / 2)
    }

    /// See [`super::packed_positions`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW, VL and VBMI2, and POPCNT.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    pub(super) unsafe fn packed_positions(packed: &super::Packed, dst: &mut [U16]) -> usize {
        let n = packed.n.min(crate::cast::BITSET_WORDS);
        // SAFETY: every slot of both arrays is initialized (they are plain integers), and
        // `n` is at most the number of words; the CPU has the features.
        unsafe { unpack_grouped(packed.words.as_ptr(), packed.firsts.as_ptr(), n, dst) }
    }

    /// Packs the words of a bitset that hold a set bit (or, with `BOUNDARIES`, a run
    /// boundary: a set bit of `w ^ (w << 1 | carry)`, `carry` the previous word's top bit)
    /// into `wp`, with each one's first position (64 times its index, twice: in both
    /// halves of a 32-bit slot) into `ip`, 8 words per step. With `STATS`, also counts the
    /// set bits and the set bits of the packed words, from the same loads. Returns how
    /// many words were packed and the two counts (0 without `STATS`).
    ///
    /// # Safety
    ///
    /// `wp` and `ip` are valid for writes of `PACKED_SLOTS` slots (each step stores 8
    /// lanes, of which the first `popcount(mask)` count: 8 slots of slack); the CPU
    /// supports AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    unsafe fn pack<const BOUNDARIES: bool, const STATS: bool>(
        bytes: &[u8; crate::cast::BITSET_BYTES],
        wp: *mut u64,
        ip: *mut u32,
    ) -> (usize, u32, u32) {
        // SAFETY: the caller's guarantees.
        unsafe { pack_capped::<BOUNDARIES, STATS, false>(bytes, wp, ip, u32::MAX) }
    }

    /// [`pack`], which with `CAPPED` counts the packed words' set bits (as with `STATS`)
    /// and stops, returning their count so far and the packing unfinished, once they
    /// exceed `limit` (checked every 64 words).
    ///
    /// # Safety
    ///
    /// As for [`pack`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    unsafe fn pack_capped<const BOUNDARIES: bool, const STATS: bool, const CAPPED: bool>(
        bytes: &[u8; crate::cast::BITSET_BYTES],
        wp: *mut u64,
        ip: *mut u32,
        limit: u32,
    ) -> (usize, u32, u32) {
        const WORDS: usize = crate::cast::BITSET_WORDS;
        // Each word's first position is kept twice in a 32-bit slot, so that `unpack`
        // broadcasts it straight from memory (a load, where a 16-bit broadcast would take
        // the shuffle port that the compress also needs).
        let lanes = _mm256_mullo_epi32(
            _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0),
            _mm256_set1_epi32(64 * 0x1_0001),
        );
        let mut last = _mm512_setzero_si512();
        let (mut ones, mut marks) = (_mm512_setzero_si512(), _mm512_setzero_si512());
        let mut n = 0;
        for c in 0..WORDS / 8 {
            // SAFETY: bytes `64 c .. 64 c + 64` lie inside the 8,192; unaligned load.
            let w = unsafe { _mm512_loadu_si512(bytes.as_ptr().add(64 * c).cast()) };
            let t = if BOUNDARIES {
                // Lane j's previous word: lane j − 1, or the last step's lane 7.
                let prev = _mm512_alignr_epi64::<7>(w, last);
                last = w;
                let shifted =
                    _mm512_or_si512(_mm512_slli_epi64::<1>(w), _mm512_srli_epi64::<63>(prev));
                _mm512_xor_si512(w, shifted)
            } else {
                w
            };
            if STATS {
                ones = _mm512_add_epi64(ones, _mm512_popcnt_epi64(w));
            }
            if STATS || CAPPED {
                marks = _mm512_add_epi64(marks, _mm512_popcnt_epi64(t));
            }
            let m = _mm512_test_epi64_mask(t, t);
            let ids = _mm256_add_epi32(lanes, _mm256_set1_epi32((512 * c * 0x1_0001) as i32));
            // SAFETY: `n <= 8 c`, so the 8 lanes stored from `n` end within
            // `PACKED_SLOTS = WORDS + 8` slots of each buffer (the caller's guarantee);
            // unaligned stores.
            unsafe {
                _mm512_storeu_si512(wp.add(n).cast(), _mm512_maskz_compress_epi64(m, t));
                _mm256_storeu_si256(ip.add(n).cast(), _mm256_maskz_compress_epi32(m, ids));
            }
            n += m.count_ones() as usize;
            if CAPPED && c % 8 == 7 {
                let so_far = _mm512_reduce_add_epi64(marks) as u32; // at most 65,536
                if so_far > limit {
                    return (n, 0, so_far);
                }
            }
        }
        // At most 65,536 each: they fit.
        let count = |v: __m512i| _mm512_reduce_add_epi64(v) as u32;
        (n, count(ones), count(marks))
    }

    /// Writes the positions of the set bits of the `n` packed words `wp` (first positions
    /// in `ip`, as [`pack`] leaves them) into `dst`: each word's positions are compressed
    /// out of a vector of all 64 and stored at once, with no branch per bit. Returns how
    /// many were written, stopping early where `dst` has fewer than 64 slots past them.
    ///
    /// # Safety
    ///
    /// Slots `..n` of `wp` and `ip` are readable and initialized; the CPU supports
    /// AVX-512 F, BW, VL and VBMI2, and POPCNT.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    unsafe fn unpack(wp: *const u64, ip: *const u32, n: usize, dst: &mut [U16]) -> usize {
        // Byte lane j holds j, the position of bit j within a word.
        let iota = _mm512_set_epi8(
            63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42,
            41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20,
            19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
        );
        let mut k = 0;
        for j in 0..n {
            // SAFETY: slots `..n` of both buffers are initialized (the caller's guarantee).
            let (t, i) = unsafe { (_load_mask64(wp.add(j)), ip.add(j).read()) };
            if dst.len() < k + 64 {
                break; // more bits than room: the caller's count was wrong
            }
            // Counted from a load of its own (volatile, so that it is not merged with the
            // mask's): the mask then goes from memory straight into a mask register, and
            // neither takes the shuffle port, which the compress and the widening need.
            // SAFETY: as above.
            let count = unsafe { wp.add(j).read_volatile() }.count_ones() as usize;
            // The positions as bytes first; then widened to 16 bits and offset by the
            // word's first position (in both halves of `i`; it fits in 16 bits as the
            // word's index is below 1024).
            let positions = _mm512_maskz_compress_epi8(t, iota);
            let base = _mm512_set1_epi32(i as i32);
            let low = _mm512_castsi512_si256(positions);
            let first = _mm512_add_epi16(_mm512_cvtepu8_epi16(low), base);
            let p = dst.as_mut_ptr();
            // SAFETY: `k + 64 <= dst.len()`; the first store writes 32 lanes from `k`, the
            // second 32 from `k + 32`: both inside `dst`. `U16` is two plain bytes,
            // little-endian like the CPU; the stores are unaligned ones.
            unsafe {
                _mm512_storeu_si512(p.add(k).cast(), first);
                if count > 32 {
                    let high = _mm512_extracti64x4_epi64::<1>(positions);
                    let second = _mm512_add_epi16(_mm512_cvtepu8_epi16(high), base);
                    _mm512_storeu_si512(p.add(k + 32).cast(), second);
                }
            }
            k += count;
        }
        k
    }

    /// [`unpack`] for sparse words, 8 at a time: the positions of up to 8 set bits of each
    /// word are found in vectors over the 8 words (one count of trailing zeros per bit
    /// rank) and compressed out in two steps, where [`unpack`] takes one compress per word.
    /// A group with a word of more than 8 set bits, and the last `n % 8` words, go through
    /// [`unpack`]. Same contract as [`unpack`].
    ///
    /// # Safety
    ///
    /// As for [`unpack`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    unsafe fn unpack_grouped(wp: *const u64, ip: *const u32, n: usize, dst: &mut [U16]) -> usize {
        let eight = _mm512_set1_epi64(8);
        let ones = _mm512_set1_epi64(1);
        // Words 0–3's lanes (their low and high four ranks), then words 4–7's.
        let first_half = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
        let second_half = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
        let limit = _mm512_set1_epi16(64);
        let mut k = 0;
        let mut j = 0;
        while j + 8 <= n {
            if dst.len() < k + 64 {
                return k; // more bits than room: the caller's count was wrong
            }
            // SAFETY: slots `j..j + 8 <= n` of both buffers are initialized (the caller's
            // guarantee); unaligned loads.
            let (words, firsts) = unsafe {
                (
                    _mm512_loadu_si512(wp.add(j).cast()),
                    _mm256_loadu_si256(ip.add(j).cast()),
                )
            };
            if _mm512_cmpgt_epu64_mask(_mm512_popcnt_epi64(words), eight) != 0 {
                // SAFETY: as above; `k <= dst.len()`.
                k += unsafe { unpack(wp.add(j), ip.add(j), 8, &mut dst[k..]) };
                j += 8;
                continue;
            }
            // Rank r's position in each word: the trailing zeros of what is left after
            // clearing the lower r set bits (64 once none is left), packed as 16-bit lanes:
            // ranks 0–3 in `low`, 4–7 in `high`, rank r in lane r % 4 of the word's u64.
            let mut w = words;
            let (mut low, mut high) = (_mm512_setzero_si512(), _mm512_setzero_si512());
            for r in 0..8 {
                let below = _mm512_sub_epi64(w, ones);
                let tz = _mm512_popcnt_epi64(_mm512_andnot_si512(w, below));
                w = _mm512_and_si512(w, below);
                let shifted = _mm512_sllv_epi64(tz, _mm512_set1_epi64(16 * (r % 4)));
                if r < 4 {
                    low = _mm512_or_si512(low, shifted);
                } else {
                    high = _mm512_or_si512(high, shifted);
                }
            }
            // Each word's first position, in all four 16-bit lanes of its u64.
            let base = _mm512_cvtepu32_epi64(firsts);
            let base = _mm512_or_si512(base, _mm512_slli_epi64::<32>(base));
            let p = dst.as_mut_ptr();
            for idx in [first_half, second_half] {
                let v = _mm512_permutex2var_epi64(low, idx, high);
                let keep = _mm512_cmplt_epu16_mask(v, limit);
                // Lane m holds word `idx[m] % 8` (the permute reads the low 3 bits).
                let b = _mm512_permutexvar_epi64(idx, base);
                let out = _mm512_maskz_compress_epi16(keep, _mm512_add_epi16(v, b));
                // SAFETY: `k + 64 <= dst.len()` before the first half, which adds at most
                // 32: each store of 32 lanes from `k` stays inside `dst`; unaligned.
                unsafe { _mm512_storeu_si512(p.add(k).cast(), out) };
                k += keep.count_ones() as usize;
            }
            j += 8;
        }
        if j < n {
            // SAFETY: slots `j..n` are initialized; `k <= dst.len()`.
            k += unsafe { unpack(wp.add(j), ip.add(j), n - j, &mut dst[k..]) };
        }
        k
    }

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

    /// See [`super::scan_count_u16`]: [`scan_matches`], counting.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn scan_count_u16(small: &[U16], large: &[U16]) -> u64 {
        let mut n = 0u64;
        scan_matches(small, large, |_| {
            n += 1;
            true
        });
        n
    }

    /// See [`super::scan_u16`]: [`scan_matches`], each match stored in room reserved for
    /// all of `small` (each of its values matches at most once, so the room suffices).
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn scan_u16(small: &[U16], large: &[U16], out: &mut alloc::vec::Vec<u16>) {
        let start = out.len();
        out.resize(start + small.len(), 0);
        let k = scan_store(small, large, &mut out[start..], 0);
        out.truncate(start + k);
    }

    /// [`scan_matches`] storing the matches in `dst` from index `k` on; returns the index
    /// past the last one stored. Matches beyond `dst`'s end (only repeated values, from a
    /// corrupt payload, can make more than there is room for) end the scan.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn scan_store(small: &[U16], large: &[U16], dst: &mut [u16], mut k: usize) -> usize {
        scan_matches(small, large, |v| match dst.get_mut(k) {
            Some(slot) => {
                *slot = v;
                k += 1;
                true
            }
            None => false,
        });
        k
    }

    /// Calls `on_match(v)` for each value `v` of `small` found in `large` (both sorted), in
    /// order, until it returns `false`. For each `v`: skip the blocks of 64 values of
    /// `large` whose last is below `v` (a predictable scalar step for four vector ones:
    /// `small`'s values lie 16 to 256 positions apart in `large` where this is used), then
    /// compare `v` with the next 16 values of `large` (unsigned, via the sign-flip trick);
    /// if all are smaller, move on by 16, else move past the smaller ones (a prefix, as
    /// `large` is sorted) and test equality. Near the end of `large`, a scalar scan
    /// finishes.
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn scan_matches(small: &[U16], large: &[U16], mut on_match: impl FnMut(u16) -> bool) {
        let flip = _mm256_set1_epi16(i16::MIN);
        let mut base = 0usize;
        'values: for v in small {
            let v = v.get();
            let needle = _mm256_set1_epi16((v ^ 0x8000) as i16);
            while base + 64 <= large.len() && large[base + 63].get() < v {
                base += 64;
            }
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
                    base += 1;
                    if !on_match(v) {
                        return;
                    }
                }
                continue 'values;
            }
            while base < large.len() && large[base].get() < v {
                base += 1;
            }
            if base == large.len() {
                return;
            }
            if large[base].get() == v {
                base += 1;
                if !on_match(v) {
                    return;
                }
            }
        }
    }

    /// See [`super::count_runs_u16_capped`] (and [`super::count_runs_u16`], the same with no
    /// cap): `values[i]` is compared with `values[i − 1] + 1` for 16 `i` at a time (two
    /// overlapping loads); the lanes that differ are breaks. Returns once the runs so far
    /// pass `cap`.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn count_runs_u16_capped(values: &[U16], cap: u32) -> u32 {
        let n = values.len();
        if n == 0 {
            return 0;
        }
        let one = _mm256_set1_epi16(1);
        let mut breaks = 0u32;
        let mut i = 1usize;
        while i + 16 <= n {
            // SAFETY: `i − 1 + 16 < i + 16 <= n`: both 32-byte loads lie inside `values`;
            // unaligned loads; `U16` is two plain little-endian bytes.
            let (v, p) = unsafe {
                (
                    _mm256_loadu_si256(values.as_ptr().add(i).cast::<__m256i>()),
                    _mm256_loadu_si256(values.as_ptr().add(i - 1).cast::<__m256i>()),
                )
            };
            let follows = _mm256_cmpeq_epi16(v, _mm256_add_epi16(p, one));
            // Two mask bits per lane.
            breaks += 16 - (_mm256_movemask_epi8(follows) as u32).count_ones() / 2;
            i += 16;
            if breaks >= cap {
                return 1 + breaks; // more than `cap` runs, whatever follows
            }
        }
        for k in i..n {
            breaks += u32::from(values[k].get() != values[k - 1].get().wrapping_add(1));
        }
        1 + breaks
    }

    /// [`count_runs_u16_capped`] 32 neighbours at a time (one 64-byte compare).
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    pub(super) unsafe fn count_runs_u16_capped_wide(values: &[U16], cap: u32) -> u32 {
        let n = values.len();
        if n == 0 {
            return 0;
        }
        let one = _mm512_set1_epi16(1);
        let mut breaks = 0u32;
        let mut i = 1usize;
        while i + 32 <= n {
            // SAFETY: `i − 1 + 32 < i + 32 <= n`: both 64-byte loads lie inside `values`;
            // unaligned loads; `U16` is two plain little-endian bytes.
            let (v, p) = unsafe {
                (
                    _mm512_loadu_si512(values.as_ptr().add(i).cast()),
                    _mm512_loadu_si512(values.as_ptr().add(i - 1).cast()),
                )
            };
            let follows = _mm512_cmpeq_epi16_mask(v, _mm512_add_epi16(p, one));
            breaks += 32 - follows.count_ones();
            i += 32;
            if breaks >= cap {
                return 1 + breaks; // more than `cap` runs, whatever follows
            }
        }
        for k in i..n {
            breaks += u32::from(values[k].get() != values[k - 1].get().wrapping_add(1));
        }
        1 + breaks
    }

    /// See [`super::array_runs_u16`]. The boundaries of the runs, in order, are each run's
    /// first value then one past its last: for 32 values at a time, a value starts a run if
    /// it is not its predecessor plus one, and ends one if its successor is not it plus one
    /// (two compares of overlapping loads). Each value, twice over (as itself for a start,
    /// plus one for an end), is kept where its flag is set, by one compress per 16 values,
    /// and the kept values go straight on in `dst`. On unsorted (corrupt) values this
    /// splits where the scalar loop does, with the same wrapping arithmetic.
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW and VBMI2, BMI2 and POPCNT.
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2,popcnt")]
    pub(super) unsafe fn array_runs_u16_wide(values: &[u16], dst: &mut [U16]) -> usize {
        let n = values.len();
        let (Some(&first), Some(slots)) = (values.first(), dst.get_mut(..2)) else {
            return 0;
        };
        // The first value starts the first run (it has no predecessor); the loop's
        // blocks begin at 1, so that each one's predecessors lie inside `values`.
        slots[0].set(first);
        let mut k = 1usize;
        if n == 1 || values[1] != first.wrapping_add(1) {
            slots[1].set(first.wrapping_add(1));
            k = 2;
        }
        let one = _mm512_set1_epi16(1);
        // 1 in the odd lanes: a value taken twice becomes itself, then one past itself.
        let odd_ones = _mm512_set1_epi32(1 << 16);
        // SAFETY: `TWICE`'s halves are 64 bytes each; unaligned loads.
        let twice = unsafe {
            [
                _mm512_loadu_si512(TWICE[0].as_ptr().cast()),
                _mm512_loadu_si512(TWICE[1].as_ptr().cast()),
            ]
        };
        let (p, out) = (values.as_ptr(), dst.as_mut_ptr());
        let mut i = 1usize;
        while i < n {
            let len = (n - i).min(32);
            let valid = mask_below(len);
            // The lanes with a successor: all but the array's last value.
            let with_next = mask_below(len.min(n - i - 1));
            // SAFETY: lanes `i..i + len`, `i − 1..i − 1 + len` (`i >= 1`) and, under
            // `with_next`, `i + 1..n` lie inside `values`; masked-out lanes are not read
            // (a masked load does not touch them) and `p.add(i + 1)` is at most one past
            // the end; unaligned loads of plain `u16`s.
            let (v, prev, next) = unsafe {
                (
                    _mm512_maskz_loadu_epi16(valid, p.add(i).cast()),
                    _mm512_maskz_loadu_epi16(valid, p.add(i - 1).cast()),
                    _mm512_maskz_loadu_epi16(with_next, p.add(i + 1).cast()),
                )
            };
            let plus_one = _mm512_add_epi16(v, one);
            let starts = _mm512_mask_cmpneq_epi16_mask(valid, v, _mm512_add_epi16(prev, one));
            let mut ends = _mm512_mask_cmpneq_epi16_mask(with_next, next, plus_one);
            if i + len == n {
                ends |= 1 << (len - 1); // the last value ends the last run
            }
            for (half, idx) in twice.iter().enumerate() {
                let (s, e) = (starts >> (16 * half) & 0xffff, ends >> (16 * half) & 0xffff);
                let keep = _pdep_u32(s, 0x5555_5555) | _pdep_u32(e, 0xaaaa_aaaa);
                let pairs = _mm512_add_epi16(_mm512_permutexvar_epi16(*idx, v), odd_ones);
                let kept = _mm512_maskz_compress_epi16(keep, pairs);
                let count = keep.count_ones() as usize;
                if k + count > dst.len() {
                    return k; // more runs than room
                }
                // SAFETY: `k + count <= dst.len()`: the masked store writes lanes
                // `k..k + count` of `dst`; unaligned; `U16` is two plain bytes, and the
                // CPU is little-endian like the format.
                unsafe { _mm512_mask_storeu_epi16(out.add(k).cast(), mask_below(count), kept) };
                k += count;
            }
            i += len;
        }
        k
    }

    /// The lanes of 16 values each taken twice, for [`array_runs_u16_wide`]: values 0–15 of
    /// a vector of 32, then values 16–31.
    #[cfg(feature = "alloc")]
    static TWICE: [[u16; 32]; 2] = {
        let mut t = [[0u16; 32]; 2];
        let mut lane = 0;
        while lane < 32 {
            t[0][lane] = lane as u16 / 2;
            t[1][lane] = 16 + lane as u16 / 2;
            lane += 1;
        }
        t
    };

    /// The mask of the lanes below `count` (at most 32).
    #[cfg(feature = "alloc")]
    #[inline(always)]
    fn mask_below(count: usize) -> u32 {
        u32::MAX.checked_shr(32 - count as u32).unwrap_or(0)
    }

    /// Shuffle masks that move the lanes of a vector of 8 `u16` whose bit in the index is
    /// clear to the front (in order): `UNIQUE_SHUFFLE[m]` drops the lanes flagged in `m`.
    #[cfg(feature = "alloc")]
    static UNIQUE_SHUFFLE: [[u8; 16]; 256] = {
        let mut t = [[0x80u8; 16]; 256];
        let mut m = 0;
        while m < 256 {
            let (mut lane, mut k) = (0, 0);
            while lane < 8 {
                if (m >> lane) & 1 == 0 {
                    t[m][2 * k] = 2 * lane as u8;
                    t[m][2 * k + 1] = 2 * lane as u8 + 1;
                    k += 1;
                }
                lane += 1;
            }
            m += 1;
        }
        t
    };

    /// Merges two sorted vectors of 8 `u16` into the 8 smallest (`lo`) and the 8 largest
    /// (`hi`), both sorted: a bitonic merge. `a` reversed against `b` gives, lane by lane,
    /// the 8 smallest (min) and the 8 largest (max) as two bitonic sequences, each sorted
    /// by three half-cleaner steps (lanes 4, 2 and 1 apart). In a merge loop `b` is the
    /// previous `hi`: the path from it to the next `hi` is one min/max and three steps of
    /// shuffle, min/max and blend (about 10 cycles, against 15 for CRoaring's seven
    /// rotate-and-min/max rounds).
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2")]
    fn merge8(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
        let reverse = _mm_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
        let ra = _mm_shuffle_epi8(a, reverse);
        (
            bitonic_sort8(_mm_min_epu16(ra, b)),
            bitonic_sort8(_mm_max_epu16(ra, b)),
        )
    }

    /// Sorts a bitonic vector of 8 `u16` (ascending then descending, or the reverse) in
    /// ascending order: at each step, the lanes `d` apart (4, 2, 1) are compared and the
    /// lower lane of each pair keeps the minimum.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2")]
    fn bitonic_sort8(v: __m128i) -> __m128i {
        let swap1 = _mm_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
        // Lanes 4 apart: swap the 64-bit halves.
        let s = _mm_shuffle_epi32::<0x4E>(v);
        let v = _mm_blend_epi16::<0xF0>(_mm_min_epu16(v, s), _mm_max_epu16(v, s));
        // Lanes 2 apart: swap the 32-bit pairs.
        let s = _mm_shuffle_epi32::<0xB1>(v);
        let v = _mm_blend_epi16::<0xCC>(_mm_min_epu16(v, s), _mm_max_epu16(v, s));
        // Neighbouring lanes.
        let s = _mm_shuffle_epi8(v, swap1);
        _mm_blend_epi16::<0xAA>(_mm_min_epu16(v, s), _mm_max_epu16(v, s))
    }

    /// The next block of 8 values for a merge: `a[i..i + 8]` if `a[i] <= b[j]` (then `i`
    /// advances by 8), else `b[j..j + 8]` (then `j` does). Both blocks are loaded and one is
    /// selected by a blend: no branch to mispredict on data that alternates at random.
    ///
    /// # Safety
    ///
    /// `i + 8 <= a.len()` and `j + 8 <= b.len()`, and the CPU supports SSE4.1.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn next_block(a: &[U16], b: &[U16], i: &mut usize, j: &mut usize) -> __m128i {
        // SAFETY: the caller guarantees both blocks lie inside their slices.
        let (va, vb) = unsafe { (load8(a, *i), load8(b, *j)) };
        let take_a = a[*i].get() <= b[*j].get();
        *i += 8 * usize::from(take_a);
        *j += 8 * usize::from(!take_a);
        _mm_blendv_epi8(vb, va, _mm_set1_epi16(-i16::from(take_a)))
    }

    /// Writes the values of `v` that differ from their predecessor (the last lane of
    /// `prev` for the first) at `out[k..]`, which must have room for 8; returns how many.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2")]
    fn store_unique(prev: __m128i, v: __m128i, out: &mut [u16], k: usize) -> usize {
        let shifted = _mm_alignr_epi8::<14>(v, prev);
        store_dropping(v, lane_mask(_mm_cmpeq_epi16(shifted, v)), out, k)
    }

    /// Writes the lanes of `v` whose bit in `drop` is clear, in order, at `out[k..]`, which
    /// must have room for 8 (all 8 lanes are stored; those past the kept ones are scratch);
    /// returns how many were kept. Without that room nothing is stored and 0 is returned:
    /// the callers' bounds hold for sorted arrays, and arrays of a corrupt payload (which
    /// checked views allow) then give a wrong result, never a panic.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2")]
    fn store_dropping(v: __m128i, drop: usize, out: &mut [u16], k: usize) -> usize {
        let shuffle = &UNIQUE_SHUFFLE[drop & 0xFF];
        // SAFETY: the table row is 16 bytes; unaligned load.
        let key = unsafe { _mm_loadu_si128(shuffle.as_ptr().cast::<__m128i>()) };
        let Some(dst) = out.get_mut(k..k + 8) else {
            return 0;
        };
        // SAFETY: `dst` is 8 `u16`, 16 bytes, exactly what is stored; unaligned store.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast::<__m128i>(), _mm_shuffle_epi8(v, key)) };
        8 - (drop & 0xFF).count_ones() as usize
    }

    /// At most 8 values, on the stack.
    #[cfg(feature = "alloc")]
    struct ShortVec {
        buf: [u16; 8],
        len: usize,
    }

    #[cfg(feature = "alloc")]
    impl FromIterator<u16> for ShortVec {
        fn from_iter<I: IntoIterator<Item = u16>>(iter: I) -> ShortVec {
            let mut v = ShortVec {
                buf: [0; 8],
                len: 0,
            };
            for (slot, x) in v.buf.iter_mut().zip(iter) {
                *slot = x;
                v.len += 1;
            }
            v
        }
    }

    #[cfg(feature = "alloc")]
    impl ShortVec {
        fn as_slice(&self) -> &[u16] {
            &self.buf[..self.len]
        }
    }

    /// Union of sorted arrays (Lemire et al.'s vectorized union, as in CRoaring): blocks of
    /// 8 are merged through [`merge8`], the smaller half stored without duplicates; the
    /// block taken next is the one whose first value is smaller. The last half-merged
    /// block and the tails are finished by a scalar merge that also drops duplicates.
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn union_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
        let start = out.len();
        out.resize(start + a.len() + b.len() + 16, 0);
        let dst = &mut out[start..];
        let mut k = 0usize;
        let (mut i, mut j) = (0usize, 0usize);
        let mut pending = [0u16; 8]; // the high half not yet stored
        let mut have_pending = false;
        if a.len() >= 8 && b.len() >= 8 {
            // SAFETY: both slices hold at least 8 values.
            let (va, vb) = unsafe { (load8(a, 0), load8(b, 0)) };
            i = 8;
            j = 8;
            let (lo, mut hi) = merge8(va, vb);
            k += store_unique(_mm_set1_epi16(-1), lo, dst, k);
            // A previous vector whose last lane is the last value stored.
            let mut last = lo;
            // Stop as soon as either array has no full block left (its tail, and the rest
            // of the other array, go to the scalar finish).
            while i + 8 <= a.len() && j + 8 <= b.len() {
                // SAFETY: the loop condition is `next_block`'s precondition.
                let next = unsafe { next_block(a, b, &mut i, &mut j) };
                let (lo, h) = merge8(next, hi);
                hi = h;
                // A value of `lo` can equal the last stored value only at lane 0.
                k += store_unique(last, lo, dst, k);
                last = lo;
            }
            // SAFETY: `pending` is 16 bytes; unaligned store.
            unsafe { _mm_storeu_si128(pending.as_mut_ptr().cast::<__m128i>(), hi) };
            have_pending = true;
        }
        // Scalar finish. One array has fewer than 8 values left (or both do): merge them with
        // `pending` into a short sorted list, then interleave that list with the other
        // array's rest, copying the stretches between its values in bulk.
        let pend: &[u16] = if have_pending { &pending } else { &[] };
        let (short, long) = if a.len() - i < 8 {
            (&a[i..], &b[j..])
        } else {
            (&b[j..], &a[i..])
        };
        let mut small = [0u16; 24];
        let mut n = 0;
        for &v in pend.iter().chain(
            short
                .iter()
                .map(|v| v.get())
                .collect::<ShortVec>()
                .as_slice(),
        ) {
            small[n] = v;
            n += 1;
        }
        let small = &mut small[..n];
        small.sort_unstable();
        k += merge_short_into(small, long, dst, k);
        out.truncate(start + k);
    }

    /// Loads `s[k..k + 32]` (unaligned).
    ///
    /// # Safety
    ///
    /// `k + 32 <= s.len()`, and the CPU supports AVX-512 F.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn load32(s: &[U16], k: usize) -> __m512i {
        debug_assert!(k + 32 <= s.len());
        // SAFETY: the caller guarantees `k + 32 <= s.len()`, so the 64 bytes read lie
        // inside `s`; the load is unaligned; `U16` is two plain bytes, little-endian like
        // the CPU.
        unsafe { _mm512_loadu_si512(s.as_ptr().add(k).cast()) }
    }

    /// Sorts a bitonic vector of 32 `u16` in ascending order: lanes `d` apart (for `d` of
    /// 16, 8, 4, 2 and 1) are compared and the lower lane of each pair keeps the minimum.
    /// The pairs 2 and 1 apart are swapped by rotations (no shuffle-port permute).
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn bitonic_sort32(v: __m512i) -> __m512i {
        // Lanes whose bit `d` is set take the maximum.
        let step = |v: __m512i, s: __m512i, upper: __mmask32| {
            _mm512_mask_max_epu16(_mm512_min_epu16(v, s), upper, v, s)
        };
        let v = step(v, _mm512_shuffle_i64x2::<0x4E>(v, v), 0xFFFF_0000);
        let v = step(v, _mm512_shuffle_i64x2::<0xB1>(v, v), 0xFF00_FF00);
        let v = step(v, _mm512_shuffle_epi32::<0x4E>(v), 0xF0F0_F0F0);
        let v = step(v, _mm512_rol_epi64::<32>(v), 0xCCCC_CCCC);
        step(v, _mm512_rol_epi32::<16>(v), 0xAAAA_AAAA)
    }

    /// Merges two sorted vectors of 32 `u16`: the lowest 32 values in order, then the
    /// highest 32 (one reversed against the other makes two bitonic halves).
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn merge32(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
        let reverse = _mm512_set_epi16(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
            24, 25, 26, 27, 28, 29, 30, 31,
        );
        let ra = _mm512_permutexvar_epi16(reverse, a);
        (
            bitonic_sort32(_mm512_min_epu16(ra, b)),
            bitonic_sort32(_mm512_max_epu16(ra, b)),
        )
    }

    /// Writes the values of `v` that differ from their predecessor (the last lane of `prev`
    /// for the first) at `out[k..]`, which must have room for 32 (all 32 lanes are stored);
    /// returns how many. Without that room nothing is stored and 0 is returned (reachable
    /// only with the unsorted arrays of a corrupt payload: a wrong result, never a panic).
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt")]
    fn store_unique32(prev: __m512i, v: __m512i, out: &mut [u16], k: usize) -> usize {
        // Lane 0 takes `prev[31]` (index 63: the second operand's lane 31), lane l `v[l − 1]`.
        let by_one = _mm512_set_epi16(
            30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9,
            8, 7, 6, 5, 4, 3, 2, 1, 0, 63,
        );
        let shifted = _mm512_permutex2var_epi16(v, by_one, prev);
        let keep = !_mm512_cmpeq_epi16_mask(shifted, v);
        let Some(dst) = out.get_mut(k..k + 32) else {
            return 0;
        };
        let kept = _mm512_maskz_compress_epi16(keep, v);
        // SAFETY: `dst` is 32 `u16`, 64 bytes, exactly what is stored; unaligned store.
        unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), kept) };
        keep.count_ones() as usize
    }

    /// See [`super::union_u16`]: [`union_u16`] with blocks of 32 (AVX-512: 16-bit permutes
    /// and compress); once an array has fewer than 32 values left, the values set aside
    /// (up to 63) and the rest of the other go to [`union_u16`].
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,avx2,popcnt")]
    pub(super) unsafe fn union_u16_wide(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
        let start = out.len();
        out.resize(start + a.len() + b.len() + 64, 0);
        let dst = &mut out[start..];
        let (mut i, mut j, mut k) = (0usize, 0usize, 0usize);
        // The values set aside for the finish: the high half not yet stored, then the
        // tail (fewer than 32) of the array that ran out of blocks.
        let mut small = [0u16; 64];
        let mut n = 0;
        if a.len() >= 32 && b.len() >= 32 {
            // SAFETY: both slices hold at least 32 values.
            let (lo, mut hi) = unsafe { merge32(load32(a, 0), load32(b, 0)) };
            (i, j) = (32, 32);
            k += store_unique32(_mm512_set1_epi16(-1), lo, dst, k);
            let mut last = lo;
            while i + 32 <= a.len() && j + 32 <= b.len() {
                // SAFETY: the loop condition; both blocks lie inside their slices.
                let (va, vb) = unsafe { (load32(a, i), load32(b, j)) };
                // The block whose first value is smaller; chosen by a blend, no branch.
                let take_a = a[i].get() <= b[j].get();
                i += 32 * usize::from(take_a);
                j += 32 * usize::from(!take_a);
                let next = _mm512_mask_blend_epi16(0u32.wrapping_sub(u32::from(take_a)), vb, va);
                let (lo, h) = merge32(next, hi);
                hi = h;
                // A value of `lo` can equal the last stored value only at lane 0.
                k += store_unique32(last, lo, dst, k);
                last = lo;
            }
            // SAFETY: `small` holds 64 `u16`; the 64 bytes stored fill its first 32 slots.
            unsafe { _mm512_storeu_si512(small.as_mut_ptr().cast(), hi) };
            n = 32;
        }
        let (short, long) = if a.len() - i < 32 {
            (&a[i..], &b[j..])
        } else {
            (&b[j..], &a[i..])
        };
        for (slot, v) in small[n..].iter_mut().zip(short) {
            *slot = v.get();
            n += 1;
        }
        small[..n].sort_unstable();
        // The rest is the union of the values set aside and the other array's rest, by the
        // 8-wide kernel (whose own finish then has at most 15 values set aside), which
        // takes arrays without repeated values: the values set aside are made unique, and
        // those equal to the last value stored are dropped from both.
        let last = k.checked_sub(1).map(|l| dst[l]);
        let mut m = 0;
        for x in 0..n {
            let v = small[x];
            if Some(v) != last && (m == 0 || v != small[m - 1]) {
                small[m] = v;
                m += 1;
            }
        }
        let long = match long.split_first() {
            Some((first, rest)) if Some(first.get()) == last => rest,
            _ => long,
        };
        out.truncate(start + k);
        // SAFETY: this function's features include the 8-wide kernel's (AVX2, POPCNT).
        unsafe { union_u16(crate::cast::native_as_le(&small[..m]), long, out) };
    }

    /// Copies the values of `long` from `*li` on that are below `v` to `dst` from `*k` on,
    /// advancing both: 8 at a time (a compare counts how many of the 8 are below `v`, a
    /// prefix as `long` is sorted; all 8 are stored, the extra ones overwritten later),
    /// one by one near the end of `long`. `dst[*k..]` must have room for them plus 8.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn copy_below(v: u16, long: &[U16], li: &mut usize, dst: &mut [u16], k: &mut usize) {
        let flip = _mm_set1_epi16(i16::MIN);
        let needle = _mm_set1_epi16((v ^ 0x8000) as i16);
        while *li + 8 <= long.len() {
            // SAFETY: `*li + 8 <= long.len()`.
            let x = unsafe { load8(long, *li) };
            let below = lane_mask(_mm_cmpgt_epi16(needle, _mm_xor_si128(x, flip)));
            let slots = &mut dst[*k..*k + 8];
            // SAFETY: `slots` is 8 `u16`, 16 bytes, exactly what is stored; unaligned store.
            unsafe { _mm_storeu_si128(slots.as_mut_ptr().cast::<__m128i>(), x) };
            let n = below.count_ones() as usize;
            *k += n;
            *li += n;
            if n < 8 {
                return;
            }
        }
        while *li < long.len() && long[*li].get() < v {
            dst[*k] = long[*li].get();
            *k += 1;
            *li += 1;
        }
    }

    /// Writes the union of `small` (sorted, a few values, duplicates allowed) and `long`
    /// (sorted, no duplicates) at `dst[k..]`, skipping a duplicate of `dst[k − 1]` (the last
    /// value already stored, if `k > 0`; nothing stored before is above a value of either);
    /// returns how many were written. The values of `long` between small values go by
    /// [`copy_below`], the rest of `long` in one copy: no search and no `memcpy` call per
    /// small value. `dst[k..]` must have room for the union plus 8.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn merge_short_into(small: &[u16], long: &[U16], dst: &mut [u16], k: usize) -> usize {
        let first = k;
        let mut k = k;
        let mut li = 0usize;
        // The first value of `long` may equal the last value stored.
        if k > 0 && long.first().is_some_and(|x| x.get() == dst[k - 1]) {
            li = 1;
        }
        for &v in small {
            copy_below(v, long, &mut li, dst, &mut k);
            if k == 0 || v > dst[k - 1] {
                dst[k] = v;
                k += 1;
            }
            if long.get(li).is_some_and(|x| x.get() == v) {
                li += 1;
            }
        }
        let rest = &long[li..];
        crate::cast::copy_u16s(&mut dst[k..k + rest.len()], rest);
        k + rest.len() - first
    }

    /// See [`super::difference_u16`] (Lemire et al., as in CRoaring): each block of 8 values
    /// of `a` is compared with the blocks of `b` that overlap it, the lanes found are
    /// accumulated, and when the block is done its other lanes are stored through the
    /// shuffle table. What is left (fewer than 8 values in one array) is merged in scalar.
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn difference_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
        let (a, b, zero) = without_zero(a, b);
        if zero == (true, false) {
            out.push(0);
        }
        let start = out.len();
        out.resize(start + a.len() + 8, 0);
        let dst = &mut out[start..];
        let (mut i, mut j, mut k) = (0usize, 0usize, 0usize);
        // The lanes of a block of `a` left unmatched when `b` ran out of blocks mid-way.
        let mut head = [0u16; 8];
        let mut head_len = 0;
        // The blocks of 8 each array has in full.
        let (sa, sb) = (a.len() & !7, b.len() & !7);
        if sa > 0 && sb > 0 {
            // The lanes of block `i` of `a` found so far, a bit each.
            let mut found = 0u32;
            // SAFETY: `sa` and `sb` are at least 8: both blocks lie inside their arrays.
            let (mut va, mut vb) = unsafe { (load8(a, 0), load8(b, 0)) };
            let out = dst.as_mut_ptr();
            loop {
                found |= match_nonzero_bits(va, vb);
                // SAFETY: `i < sa` and `j < sb`, multiples of 8 (the loop's invariants:
                // each advance by 8 is followed by its check against `sa` or `sb`), so
                // `i + 7 < a.len()` and `j + 7 < b.len()`. Unchecked: the bounds checks
                // and their branches made this loop 20 % slower (census-income's pairs
                // of arrays, `andnot`, `examples/kind_pairs`).
                let (amax, bmax) = unsafe { (a.get_unchecked(i + 7), b.get_unchecked(j + 7)) };
                let (amax, bmax) = (amax.get(), bmax.get());
                // When no later block of `b` can match this block of `a` (`amax <= bmax`),
                // what it keeps is final: stored, counted, and `found` starts over. The
                // blocks advance by branches (as in CRoaring): predicted, the next loads
                // start before this turn's comparison is known.
                if amax <= bmax {
                    let drop = (found & 0xFF) as usize;
                    // SAFETY: the table row is 16 bytes; unaligned load.
                    let key = unsafe { _mm_loadu_si128(UNIQUE_SHUFFLE[drop].as_ptr().cast()) };
                    // SAFETY: `k <= i` (each block of 8 read keeps at most 8) and
                    // `i + 8 <= a.len()`, while `dst` holds `a.len() + 8` slots: the 16
                    // bytes stored from `k` lie inside it; unaligned store.
                    unsafe { _mm_storeu_si128(out.add(k).cast(), _mm_shuffle_epi8(va, key)) };
                    k += 8 - drop.count_ones() as usize;
                    i += 8;
                    if i == sa {
                        break;
                    }
                    found = 0;
                    // SAFETY: `i < sa`, a multiple of 8: the block lies inside `a`.
                    va = unsafe { load8(a, i) };
                }
                if bmax <= amax {
                    j += 8;
                    if j == sb {
                        // Block `i` is under way: its unmatched lanes go to the finish.
                        // (`i < sa` always holds here, the loop having broken at
                        // `i == sa`; with the check written out this build's loop ran
                        // 7 % faster, in `examples/kind_pairs`: kept for that.)
                        if i < sa {
                            head_len = store_dropping(va, found as usize, &mut head, 0);
                            i += 8;
                        }
                        break;
                    }
                    // SAFETY: `j < sb`, a multiple of 8: the block lies inside `b`.
                    vb = unsafe { load8(b, j) };
                }
            }
        }
        for &v in &head[..head_len] {
            while j < b.len() && b[j].get() < v {
                j += 1;
            }
            if j == b.len() || b[j].get() != v {
                dst[k] = v;
                k += 1;
            }
        }
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i].get(), b[j].get());
            dst[k] = x;
            k += usize::from(x < y);
            i += usize::from(x <= y);
            j += usize::from(y <= x);
        }
        for (d, v) in dst[k..].iter_mut().zip(&a[i..]) {
            *d = v.get();
        }
        k += a.len() - i;
        out.truncate(start + k);
    }

    /// Stores the lanes of `[old[7], new[0..7]]` that differ from both neighbours in the
    /// merged stream (`old[6]` on the left of the first, `new[7]` on the right of the last)
    /// at `out[k..]`, which must have room for 8; returns how many. In a merge of two
    /// duplicate-free arrays equal values are neighbours, so this drops both of each pair.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2")]
    fn store_unique_xor(old: __m128i, new: __m128i, out: &mut [u16], k: usize) -> usize {
        let left = _mm_alignr_epi8::<12>(new, old);
        let v = _mm_alignr_epi8::<14>(new, old);
        let pair = _mm_or_si128(_mm_cmpeq_epi16(v, left), _mm_cmpeq_epi16(v, new));
        store_dropping(v, lane_mask(pair), out, k)
    }

    /// See [`super::xor_u16`] (as CRoaring's `xor_vector16`): the merge network of
    /// [`union_u16`], storing each value one lane late so that it can be compared with
    /// both neighbours ([`store_unique_xor`]). The values not yet stored, with the tail of
    /// the array that ran out of blocks, are sorted in a small buffer, pairs removed, and
    /// interleaved with the other array's rest.
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn xor_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
        let start = out.len();
        out.resize(start + a.len() + b.len() + 16, 0);
        let dst = &mut out[start..];
        let (mut i, mut j, mut k) = (0usize, 0usize, 0usize);
        // Values not stored yet: at most 9 from the network, then fewer than 8 of a tail.
        let mut small = [0u16; 24];
        let mut n = 0;
        if a.len() >= 8 && b.len() >= 8 {
            // SAFETY: both slices hold at least 8 values.
            let (lo, mut hi) = unsafe { merge8(load8(a, 0), load8(b, 0)) };
            (i, j) = (8, 8);
            // The first lane stored is `old[7]` = 0xFFFF, dropped as equal to `old[6]`.
            k += store_unique_xor(_mm_set1_epi16(-1), lo, dst, k);
            let mut last = lo;
            while i + 8 <= a.len() && j + 8 <= b.len() {
                // SAFETY: the loop condition is `next_block`'s precondition.
                let next = unsafe { next_block(a, b, &mut i, &mut j) };
                let (lo, h) = merge8(next, hi);
                hi = h;
                k += store_unique_xor(last, lo, dst, k);
                last = lo;
            }
            // `last[7]` and `hi[0..7]`, then `hi[7]` unless it pairs with `hi[6]` (a value
            // of a tail may still pair with any of them: the buffer is sorted below).
            n = store_unique_xor(last, hi, &mut small, 0);
            let (h6, h7) = (
                _mm_extract_epi16::<6>(hi) as u16,
                _mm_extract_epi16::<7>(hi) as u16,
            );
            if h6 != h7 {
                small[n] = h7;
                n += 1;
            }
        }
        let (short, long) = if a.len() - i < 8 {
            (&a[i..], &b[j..])
        } else {
            (&b[j..], &a[i..])
        };
        for v in short {
            small[n] = v.get();
            n += 1;
        }
        small[..n].sort_unstable();
        // Drop the pairs (a value of the network equal to one of the tail).
        let (mut p, mut m) = (0, 0);
        while p < n {
            if p + 1 < n && small[p] == small[p + 1] {
                p += 2;
            } else {
                small[m] = small[p];
                m += 1;
                p += 1;
            }
        }
        // Each remaining value of the network or the tail either cancels the equal value
        // of `long` or goes between its values (see `copy_below`).
        let mut li = 0usize;
        for &v in &small[..m] {
            copy_below(v, long, &mut li, dst, &mut k);
            if long.get(li).is_some_and(|x| x.get() == v) {
                li += 1;
            } else {
                dst[k] = v;
                k += 1;
            }
        }
        let rest = &long[li..];
        crate::cast::copy_u16s(&mut dst[k..k + rest.len()], rest);
        k += rest.len();
        out.truncate(start + k);
    }

    /// The 8-bit mask (bit `l` for lane `l`) of the all-ones lanes of `m`.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lane_mask(m: __m128i) -> usize {
        _mm_movemask_epi8(_mm_packs_epi16(m, _mm_setzero_si128())) as usize & 0xFF
    }

    /// `a` and `b` without a first value 0, and whether each had one. A value 0, possible
    /// only first in a sorted array, is settled by the caller, so that block compares can
    /// take 0 for the end of a block ([`match_nonzero`]).
    #[inline(always)]
    fn without_zero<'a, 'b>(a: &'a [U16], b: &'b [U16]) -> (&'a [U16], &'b [U16], (bool, bool)) {
        fn strip(s: &[U16]) -> (&[U16], bool) {
            match s.split_first() {
                Some((v, rest)) if v.get() == 0 => (rest, true),
                _ => (s, false),
            }
        }
        let ((a, za), (b, zb)) = (strip(a), strip(b));
        (a, b, (za, zb))
    }

    /// A bit (bits 0–7) for each lane of `va` equal to some lane of `vb` (all 8×8 pairs of
    /// 16-bit lanes), for blocks whose lanes are all non-zero (sorted arrays past a first
    /// value 0, see [`without_zero`]): one SSE4.2 implicit-length string compare, which takes
    /// a 0 lane for the end of the block, as CRoaring's `difference_vector16` does. The
    /// explicit-length compare, which allows 0, has three times the micro-operations
    /// (census-income `andnot`: 10 % slower with it). A 0 lane after the first, only in a
    /// corrupt array, hides the lanes after it: a wrong answer, nothing worse. As bits
    /// straight from the compare, not a lane mask packed into bits.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn match_nonzero_bits(va: __m128i, vb: __m128i) -> u32 {
        let m = _mm_cmpistrm::<{ _SIDD_UWORD_OPS | _SIDD_CMP_EQUAL_ANY | _SIDD_BIT_MASK }>(vb, va);
        _mm_cvtsi128_si32(m) as u32
    }

    /// Block intersection (Schlegel, Willhalm, Lehner; Lemire et al.): compares 8 values of
    /// `a` with 8 values of `b`, calls `on_block(va, found)` with the block of `a` and the
    /// all-ones lanes of it found in the block of `b`, and advances the block with the
    /// smaller maximum (both if equal). Returns where a scalar merge must take over. A value
    /// of `a` matches at most one value of `b`, and later blocks of `b` hold larger values,
    /// so the blocks of `a` come in ascending order and each match is reported once.
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn blocks(a: &[U16], b: &[U16], mut on_block: impl FnMut(__m128i, u32)) -> (usize, usize) {
        let (mut i, mut j) = (0usize, 0usize);
        if a.len() < 8 || b.len() < 8 {
            return (i, j);
        }
        // SAFETY: `i + 8 <= a.len()` and `j + 8 <= b.len()`: checked above, and before
        // each later load.
        let (mut va, mut vb) = unsafe { (load8(a, i), load8(b, j)) };
        loop {
            on_block(va, match_nonzero_bits(va, vb));
            // Advance by branches (as CRoaring does): predicted, they let the next loads
            // start before this turn's comparison is known; the branch-free form made
            // every turn wait for the last turn's loads (~3× slower on small arrays).
            // SAFETY: `i + 8 <= a.len()` and `j + 8 <= b.len()` (see the loads). Unchecked
            // as in `difference_u16`.
            let (amax, bmax) = unsafe { (a.get_unchecked(i + 7), b.get_unchecked(j + 7)) };
            let (amax, bmax) = (amax.get(), bmax.get());
            if amax <= bmax {
                i += 8;
                if i + 8 > a.len() {
                    return (i, j + 8 * usize::from(bmax == amax));
                }
                // SAFETY: `i + 8 <= a.len()` just checked.
                va = unsafe { load8(a, i) };
            }
            if bmax <= amax {
                j += 8;
                if j + 8 > b.len() {
                    return (i, j);
                }
                // SAFETY: `j + 8 <= b.len()` just checked.
                vb = unsafe { load8(b, j) };
            }
        }
    }

    /// See [`super::intersect_u16`]: [`blocks`], storing the matching lanes of each block
    /// through the shuffle table (no branch per match), then the fewer than 8 values left on
    /// one side searched for in the other's rest ([`scan_matches`]).
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx2,popcnt,bmi1")]
    pub(super) unsafe fn intersect_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
        let (a, b, zero) = without_zero(a, b);
        if zero == (true, true) {
            out.push(0);
        }
        let start = out.len();
        out.resize(start + a.len().min(b.len()) + 8, 0);
        let dst = &mut out[start..];
        let mut k = 0;
        // Before a store, `k` (matches so far) is at most the values of `b` before the
        // current block (each matches once), which has 8 more, and at most the values of
        // `a` up to the end of the current block: `k + 8 <= min(a, b) + 8 = dst.len()`.
        // Unsorted or repeated values (a corrupt payload) can match more than once: the
        // matches beyond the room are dropped (`store_dropping`, and the check below).
        let (i, j) = blocks(a, b, |va, found| {
            k += store_dropping(va, !found as usize, dst, k);
        });
        // The side with fewer than 8 values left is searched for in the other's rest,
        // which can be long (a merge would step through it value by value).
        let (a, b) = (&a[i..], &b[j..]);
        let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        k = scan_store(small, large, dst, k);
        out.truncate(start + k);
    }

    /// See [`super::intersect_count_u16`]: [`blocks`], counting the matches, then the fewer
    /// than 8 values left on one side searched for in the other's rest ([`scan_matches`]).
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn intersect_count_u16(a: &[U16], b: &[U16]) -> u64 {
        let (a, b, zero) = without_zero(a, b);
        let mut n = u64::from(zero == (true, true));
        let (i, j) = blocks(a, b, |_, found| n += u64::from(found.count_ones()));
        // The side with fewer than 8 values left is searched for in the other's rest,
        // which can be long (a merge would step through it value by value).
        let (a, b) = (&a[i..], &b[j..]);
        let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        // SAFETY: this function's own requirements (AVX2 and POPCNT) are the callee's.
        n + unsafe { scan_count_u16(small, large) }
    }
}
