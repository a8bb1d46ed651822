//! Typed slots: state a feature keeps per tab (or per client) behind a
//! type the feature owns, so the tab's and the client's state name no
//! feature. A slot is made with `Default` on first use.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::MutexGuard;

/// Values by their type, one of each.
#[derive(Default)]
pub struct Slots(HashMap<TypeId, Box<dyn Any + Send>>);

impl Slots {
    /// The `T` kept here, made with `Default` if there is none yet.
    pub fn get_mut<T: Default + Send + 'static>(&mut self) -> &mut T {
        self.0
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(T::default()))
            .downcast_mut()
            .expect("a slot holds the type it is keyed by")
    }

    /// The `T` kept here, if one was made.
    pub fn get<T: 'static>(&self) -> Option<&T> {
        self.0.get(&TypeId::of::<T>())?.downcast_ref()
    }
}

/// One slot of a locked [`Slots`]: the lock is held while it lives (keep
/// it for a statement, never across an `await`).
pub struct SlotGuard<'a, T> {
    slots: MutexGuard<'a, Slots>,
    kind: PhantomData<T>,
}

impl<'a, T: Default + Send + 'static> SlotGuard<'a, T> {
    /// Makes the slot if needed, then lends it.
    pub fn new(mut slots: MutexGuard<'a, Slots>) -> Self {
        slots.get_mut::<T>();
        Self {
            slots,
            kind: PhantomData,
        }
    }
}

impl<T: Default + Send + 'static> Deref for SlotGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.slots.get::<T>().expect("made with the guard")
    }
}

impl<T: Default + Send + 'static> DerefMut for SlotGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.slots.get_mut::<T>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default, Debug, PartialEq)]
    struct Count(u32);
    #[derive(Default, Debug, PartialEq)]
    struct Name(String);

    #[test]
    fn each_type_has_its_own_slot_made_on_first_use() {
        let mut slots = Slots::default();
        assert_eq!(slots.get::<Count>(), None);
        slots.get_mut::<Count>().0 += 2;
        slots.get_mut::<Name>().0.push('x');
        assert_eq!(slots.get::<Count>(), Some(&Count(2)));
        assert_eq!(slots.get::<Name>(), Some(&Name("x".into())));
    }

    #[test]
    fn a_guard_lends_its_slot_under_the_lock() {
        let lock = std::sync::Mutex::new(Slots::default());
        SlotGuard::<Count>::new(lock.lock().unwrap()).0 = 5;
        assert_eq!(SlotGuard::<Count>::new(lock.lock().unwrap()).0, 5);
    }
}
