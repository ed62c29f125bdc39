//! Setting, flipping or clearing one bit of a bitset: the inner step of putting an
//! array's values into a bitset, as inline assembly on x86-64 and plain Rust elsewhere.

#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[allow(unused_imports)]
use super::x86;
#[allow(unused_imports)]
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
/// instruction shorter. AMD's CPUs take [`bit_op_portable`] instead (see
/// [`prefer_bit_op_in_memory`]).
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

/// Whether the bit step should be [`bit_op_portable`], an operation into memory, rather
/// than the assembly's load, register bit operation and store: on AMD, where it set
/// arrays into bitsets 1.3–1.6 times as fast (union of all of census1881 and of
/// census-income; BENCHMARKS.md, design decisions), while the assembly was 6–9 % faster on
/// the Intel machine.
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) fn prefer_bit_op_in_memory() -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    return x86::is_amd();
    #[cfg(not(all(feature = "std", target_arch = "x86_64")))]
    return true;
}

/// [`bit_op`] in plain Rust: an operation into memory (what the tests compare it with).
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) fn bit_op_portable(bits: &mut [u64; crate::cast::BITSET_WORDS], v: u16, op: BitOp) {
    let (word, bit) = (&mut bits[usize::from(v >> 6)], 1u64 << (v & 63));
    match op {
        BitOp::Set => *word |= bit,
        BitOp::Flip => *word ^= bit,
        BitOp::Clear => *word &= !bit,
    }
}
