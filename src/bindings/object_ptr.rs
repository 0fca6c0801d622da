//! src/bindings/object_ptr.rs: `ObjectPtr`, the one owned-reference type, and `Borrowed`, the one
//! borrowed-reference type (PyTorch: `THPObjectPtr`; nanobind: `object` / `handle`).
//!
//! Layer 0 (references, errors, GIL, state): see src/bindings/mod.rs.

use pyo3_ffi as ffi;
use std::marker::PhantomData;
use std::ptr::NonNull;

/// An owned (strong) reference to a Python object, released on drop. Never `Copy`; `clone`
/// takes a new reference. Build one with `steal` (takes over a new reference) or `borrow` (takes
/// a new reference to a borrowed object); hand it back to CPython with `release`.
pub struct ObjectPtr(NonNull<ffi::PyObject>);

impl ObjectPtr {
    /// Take ownership of a *new* reference; `None` when `p` is NULL (an error is then set by
    /// whoever returned it).
    ///
    /// # Safety
    /// `p` is NULL or a new reference the caller owns and gives up.
    #[inline]
    pub unsafe fn steal(p: *mut ffi::PyObject) -> Option<ObjectPtr> {
        NonNull::new(p).map(ObjectPtr)
    }

    /// Take ownership of a *new* reference; `Err(PythonError)` when `p` is NULL (the CPython call
    /// that returned it has set the error).
    ///
    /// # Safety
    /// As `steal`.
    #[inline]
    pub unsafe fn steal_or_err(
        p: *mut ffi::PyObject,
    ) -> Result<ObjectPtr, super::errors::BindError> {
        // SAFETY: forwarded contract.
        unsafe { Self::steal(p) }.ok_or(super::errors::BindError::Python)
    }

    /// A new strong reference to a *borrowed* object.
    ///
    /// # Safety
    /// `p` is a valid, non-NULL object pointer kept alive by someone for the duration of the call.
    #[inline]
    pub unsafe fn borrow(p: *mut ffi::PyObject) -> ObjectPtr {
        super::gil::assert_gil_held();
        // SAFETY: `p` is a live object (contract); we own the reference taken here.
        unsafe { ffi::Py_INCREF(p) };
        ObjectPtr(NonNull::new(p).expect("ObjectPtr::borrow of NULL"))
    }

    /// The object, *borrowed* from this owner (valid while `self` lives).
    #[inline]
    pub fn as_ptr(&self) -> *mut ffi::PyObject {
        self.0.as_ptr()
    }

    /// A borrowed view tied to this owner's lifetime.
    #[inline]
    pub fn as_borrowed(&self) -> Borrowed<'_> {
        Borrowed(self.0, PhantomData)
    }

    /// Give up ownership: returns a *new* reference for the caller (e.g. to return to CPython).
    #[inline]
    pub fn release(self) -> *mut ffi::PyObject {
        let p = self.0.as_ptr();
        std::mem::forget(self);
        p
    }
}

impl Clone for ObjectPtr {
    fn clone(&self) -> Self {
        // SAFETY: `self` keeps the object alive; the new reference is owned by the clone.
        unsafe { ObjectPtr::borrow(self.as_ptr()) }
    }
}

impl Drop for ObjectPtr {
    #[inline]
    fn drop(&mut self) {
        // Checked in builds for a `Py_DEBUG` interpreter (nothing in release builds).
        super::gil::assert_gil_held();
        // SAFETY: we own exactly one strong reference, released here once. Every `ObjectPtr` is
        // created and dropped with the GIL held (binding code runs only under the GIL).
        unsafe { ffi::Py_DECREF(self.0.as_ptr()) }
    }
}

/// A *borrowed* reference: valid for `'a`, owned by someone else (an argument array, a tuple, an
/// `ObjectPtr`). Copying it takes no reference.
/// `repr(transparent)`: a slice of CPython's item pointers can be viewed as `[Borrowed]`.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Borrowed<'a>(NonNull<ffi::PyObject>, PhantomData<&'a ffi::PyObject>);

impl<'a> Borrowed<'a> {
    /// # Safety
    /// `p` is non-NULL and stays alive for `'a` (its owner outlives the borrow).
    #[inline]
    pub unsafe fn from_ptr(p: *mut ffi::PyObject) -> Borrowed<'a> {
        Borrowed(
            NonNull::new(p).expect("Borrowed::from_ptr of NULL"),
            PhantomData,
        )
    }
    #[inline]
    pub fn as_ptr(self) -> *mut ffi::PyObject {
        self.0.as_ptr()
    }
    /// A new strong reference to the same object.
    #[inline]
    pub fn to_owned(self) -> ObjectPtr {
        // SAFETY: the object is alive for `'a` by construction.
        unsafe { ObjectPtr::borrow(self.as_ptr()) }
    }
    /// The object's type, borrowed.
    #[inline]
    pub fn type_ptr(self) -> *mut ffi::PyTypeObject {
        // SAFETY: a live object always has a valid type pointer.
        unsafe { ffi::Py_TYPE(self.as_ptr()) }
    }
}

/// A new reference to `None`.
pub fn none() -> ObjectPtr {
    // SAFETY: `Py_None()` is the immortal-in-practice singleton; we take a new reference to it.
    unsafe { ObjectPtr::borrow(ffi::Py_None()) }
}

/// A new reference to `NotImplemented`.
pub fn not_implemented() -> ObjectPtr {
    // SAFETY: as for `none`.
    unsafe { ObjectPtr::borrow(ffi::Py_NotImplemented()) }
}

/// A new reference to `True` or `False`.
pub fn py_bool(v: bool) -> ObjectPtr {
    // SAFETY: the bool singletons are always alive; we take a new reference.
    unsafe { ObjectPtr::borrow(if v { ffi::Py_True() } else { ffi::Py_False() }) }
}
