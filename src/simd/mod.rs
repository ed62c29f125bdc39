//! Runtime CPU-feature dispatch, the x86 SIMD kernels, and two inline-assembly steps: a
//! bitset's bit operation in two forms (`bit_op`, and `bit_op_bmi2` where the CPU has
//! BMI2), and VP2INTERSECT (`x86_util::lanes_found`, whose intrinsic is not stable). With
//! the memory map of `BitmapFile::open`, all of the crate's `unsafe` code. Four kinds live
//! here, each block with its `// SAFETY:` proof: calls of `#[target_feature]` functions
//! after the run-time check of those features; the x86 kernels (`x86_kernels`), whose
//! intrinsics read and write through raw pointers into slices whose lengths they check
//! first; the assembly steps, one setting a bit of a bitset at an index below its length,
//! the other comparing two registers; and the length of a vector set over the spare slots
//! that `tail::Blocks` has written.
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
    /// 0: not yet detected, 1: the CPU is AMD's and has AVX-512 VP2INTERSECT, 2: not
    /// (set with `LEVEL`; see `has_fast_vp2intersect`).
    static VP2INTERSECT: AtomicU8 = AtomicU8::new(0);

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

    /// Whether the AVX-512 kernels may run and the CPU has a fast VP2INTERSECT (all pairs
    /// of two vectors of 16 `u32` compared in one instruction): AMD's, from its fifth Zen
    /// generation. Intel's one implementation (Tiger Lake) takes tens of cycles, slower
    /// than the 8×8 string compares it would replace.
    #[inline(always)]
    pub(crate) fn has_fast_vp2intersect() -> bool {
        has_v4() && VP2INTERSECT.load(Ordering::Relaxed) == 1
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
        let vp2intersect = amd && std::is_x86_feature_detected!("avx512vp2intersect");
        VP2INTERSECT.store(if vp2intersect { 1 } else { 2 }, Ordering::Relaxed);
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
            $crate::simd::dispatch!(@accelerated $body, ($($arg: $ty),*) -> $ret, [$($wide)?]);
            $body($($arg),*)
        }
    };
    // With `baseline out of line`, the baseline copy is a call too: the dispatch then stays
    // small enough to inline into its callers, which call the accelerated copy directly.
    ($(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty => $body:path, baseline out of line;) => {
        $(#[$meta])*
        #[inline]
        #[allow(unsafe_code)]
        $vis fn $name($($arg: $ty),*) -> $ret {
            $crate::simd::dispatch!(@accelerated $body, ($($arg: $ty),*) -> $ret, []);
            #[inline(never)]
            fn baseline($($arg: $ty),*) -> $ret {
                $body($($arg),*)
            }
            baseline($($arg),*)
        }
    };
    // The returns of the accelerated copies, where the CPU has their features.
    (@accelerated $body:path, ($($arg:ident : $ty:ty),*) -> $ret:ty, [$($wide:expr)?]) => {
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
    };
}

pub(crate) use dispatch;

mod arrays;
mod bits;
mod header;
mod merge;
mod pack;
mod runs;
mod tail;
#[cfg(all(feature = "std", target_arch = "x86_64"))]
mod x86_util;

pub(crate) use arrays::*;
#[allow(unused_imports)] // all of it needs `alloc`
pub(crate) use bits::*;
pub(crate) use header::{frozen_run_counts_hold, portable_offsets_hold};
#[allow(unused_imports)] // all of it needs `alloc`
pub(crate) use merge::*;
#[allow(unused_imports)] // all of it needs `alloc`
pub(crate) use pack::*;
#[allow(unused_imports)] // all of it needs `alloc`
pub(crate) use runs::*;
pub(crate) use tail::BYTE_POSITIONS;
pub(crate) use tail::words_into;
#[cfg(feature = "alloc")]
pub(crate) use tail::{Blocks, extend_widened};
