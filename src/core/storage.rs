//! src/core/storage.rs: `Storage`, a reference-counted, fallibly allocated byte buffer shared by a
//! tensor and its views (PyTorch: `c10::StorageImpl`).

use super::error::{Error, Result};
use std::alloc::{self, Layout};
use std::cell::UnsafeCell;
use std::ptr::NonNull;

/// Alignment of every storage allocation: enough for any element type. It is deliberately not
/// larger than the system allocator's natural alignment (16 on x86-64 glibc): up to that, Rust's
/// `alloc_zeroed` is `calloc`, which hands out fresh pages already zeroed; above it, it becomes
/// `malloc` + `memset`, which made allocating a large output cost more than computing it. The
/// kernels use unaligned SIMD loads, so nothing needs more.
const STORAGE_ALIGN: usize = 16;

/// A heap buffer of `nbytes` bytes. Allocation is fallible: a request the allocator cannot meet
/// returns `ErrorKind::OutOfMemory` instead of aborting the process.
///
/// Note [Storage aliasing]: views share one `Storage` and in-place ops write through it, as in
/// torch. The bytes are therefore behind an `UnsafeCell`; the core never hands out `&mut [T]` to
/// a whole storage for longer than one kernel, and concurrent writers from several threads are
/// the caller's responsibility (torch's rule too). Kernels that split work across threads write
/// disjoint ranges.
pub struct Storage {
    ptr: NonNull<u8>,
    nbytes: usize,
    _cell: UnsafeCell<()>,
}

// SAFETY: the buffer is plain bytes owned by this struct; see Note [Storage aliasing] for the
// rule on concurrent writes, which matches torch's.
unsafe impl Send for Storage {}
// SAFETY: as above: shared access hands out raw pointers only, never references that alias.
unsafe impl Sync for Storage {}

impl Storage {
    /// Allocate `nbytes` zeroed bytes; `OutOfMemory` if the allocator refuses.
    pub fn zeroed(nbytes: usize) -> Result<Storage> {
        Storage::allocate(nbytes, true)
    }

    /// Allocate `nbytes` bytes left uninitialised (`malloc`, not `calloc`: no zeroing pass and no
    /// forced page faults for memory glibc recycles). Only `Tensor::empty_uninit`, whose callers
    /// write every byte before reading, uses it.
    pub(crate) fn uninit(nbytes: usize) -> Result<Storage> {
        Storage::allocate(nbytes, false)
    }

    fn allocate(nbytes: usize, zeroed: bool) -> Result<Storage> {
        if nbytes == 0 {
            return Ok(Storage {
                ptr: Self::dangling(),
                nbytes: 0,
                _cell: UnsafeCell::new(()),
            });
        }
        let layout = Self::layout(nbytes).ok_or_else(|| {
            Error::runtime(format!(
                "Storage size calculation overflowed: {nbytes} bytes"
            ))
        })?;
        // SAFETY: layout has a non-zero size (checked above).
        let raw = unsafe {
            if zeroed {
                alloc::alloc_zeroed(layout)
            } else {
                alloc::alloc(layout)
            }
        };
        match NonNull::new(raw) {
            Some(ptr) => {
                advise_huge_pages(ptr.as_ptr(), nbytes);
                Ok(Storage {
                    ptr,
                    nbytes,
                    _cell: UnsafeCell::new(()),
                })
            }
            None => Err(Error::out_of_memory(format!(
                "failed to allocate {nbytes} bytes of tensor storage"
            ))),
        }
    }

    /// The allocation's layout: `nbytes` rounded up to the alignment. Rust's system allocator
    /// serves `alloc_zeroed` with `calloc` only when the size is at least the alignment;
    /// below it (a 1-element float32 tensor: 4 bytes) it falls back to `posix_memalign` +
    /// `memset`, which costs ~100 instructions per small tensor.
    fn layout(nbytes: usize) -> Option<Layout> {
        let size = nbytes.checked_next_multiple_of(STORAGE_ALIGN)?;
        Layout::from_size_align(size, STORAGE_ALIGN).ok()
    }

    fn dangling() -> NonNull<u8> {
        // A non-null, suitably aligned address for zero-sized storages; never dereferenced.
        NonNull::new(STORAGE_ALIGN as *mut u8).expect("non-zero constant")
    }

    /// Size of the buffer in bytes.
    pub fn nbytes(&self) -> usize {
        self.nbytes
    }

    /// Base address of the buffer. Writes through it follow Note [Storage aliasing].
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

/// Large buffers ask the kernel for transparent huge pages (numpy does the same): a fresh 40 MB
/// output then takes ~20 page faults instead of ~10,000, which otherwise dominate a large
/// elementwise op. Best effort: the advice may be refused, which changes nothing else.
fn advise_huge_pages(ptr: *mut u8, nbytes: usize) {
    const HUGE_PAGE: usize = 2 << 20;
    if nbytes < 2 * HUGE_PAGE {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
    let end = (ptr as usize + nbytes) & !(HUGE_PAGE - 1);
    if end > start {
        // SAFETY: `[start, end)` lies inside our own live allocation; `madvise` with
        // MADV_HUGEPAGE only changes how the kernel backs those pages, never their contents.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        if self.nbytes != 0 {
            let layout = Self::layout(self.nbytes).expect("layout was valid at allocation");
            // SAFETY: `ptr` came from `alloc`/`alloc_zeroed` with exactly this layout and is freed once.
            unsafe { alloc::dealloc(self.ptr.as_ptr(), layout) };
        }
    }
}
