//! proptest strategies for sets that hit the format's edges (empty, single values, 0 and
//! u32::MAX, 4096/4097-value containers, full containers, runs at container edges).

use std::collections::BTreeSet;

use super::{Shape, build_set};
use proptest::prelude::*;

pub fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        4 => (1u16..40).prop_map(Shape::Sparse),
        2 => prop_oneof![Just(4095u16), Just(4096), Just(4097), Just(4098), 1u16..9000].prop_map(Shape::Exact),
        2 => (1u16..30).prop_map(Shape::Runs),
        1 => Just(Shape::Full),
        1 => Just(Shape::Dense),
        1 => Just(Shape::Alternating),
    ]
}

pub fn key() -> impl Strategy<Value = u16> {
    prop_oneof![
        Just(0u16),
        Just(1),
        Just(u16::MAX),
        Just(u16::MAX - 1),
        0u16..8,
        any::<u16>()
    ]
}

pub fn set() -> impl Strategy<Value = BTreeSet<u32>> {
    prop_oneof![
        1 => Just(BTreeSet::new()),
        1 => prop_oneof![Just(0u32), Just(u32::MAX), any::<u32>()].prop_map(|v| BTreeSet::from([v])),
        8 => prop::collection::vec((key(), shape(), any::<u64>()), 1..6).prop_map(|p| build_set(&p)),
        1 => prop::collection::btree_set(any::<u32>(), 0..300),
    ]
}
