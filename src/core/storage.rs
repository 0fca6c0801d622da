//! src/core/storage.rs: `Storage`, a reference-counted, fallibly allocated byte buffer shared by a
//! tensor and its views (PyTorch: `c10::StorageImpl`).

use super::error::{Error, Result};
use std::alloc::{self, Layout};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Alignment of every storage allocation: enough for any element type. It is deliberately not
/// larger than the system allocator's natural alignment (16 on x86-64 glibc): up to that, Rust's
/// `alloc_zeroed` is `calloc`, which hands out fresh pages already zeroed; above it, it becomes
/// `malloc` + `memset`, which made allocating a large output cost more than computing it. The
/// kernels use unaligned SIMD loads, so nothing needs more.
const STORAGE_ALIGN: usize = 16;

/// A heap buffer of `nbytes` bytes, reference-counted: cloning a `Storage` gives another handle
/// to the same bytes (PyTorch: `c10::StorageImpl` behind an `intrusive_ptr`). Allocation is
/// fallible: a request the allocator cannot meet returns `ErrorKind::OutOfMemory` instead of
/// aborting the process.
///
/// The count, the size and the bytes are one allocation (a 16-byte `StorageHeader`, then the
/// data, 16-aligned): an `Arc<Storage>` pointing at a separate buffer cost a second
/// `malloc`/`free` pair for every tensor too large to keep its data inline (Note [Small
/// tensors] in tensor.rs).
///
/// Note [Storage aliasing]: views share one `Storage` and in-place ops write through it, as in
/// torch. The bytes are therefore only ever reached through raw pointers; the core never hands
/// out `&mut [T]` to a whole storage for longer than one kernel, and concurrent writers from
/// several threads are the caller's responsibility (torch's rule too). Kernels that split work
/// across threads write disjoint ranges.
pub struct Storage {
    block: NonNull<StorageHeader>,
}

/// The start of every storage block; the data follows at `STORAGE_ALIGN`.
#[repr(C, align(16))]
struct StorageHeader {
    refcount: AtomicUsize,
    nbytes: usize,
}

const HEADER: usize = std::mem::size_of::<StorageHeader>();
const _: () = assert!(HEADER == STORAGE_ALIGN);

// SAFETY: the header is only accessed atomically (count) or read-only (size); for the bytes see
// Note [Storage aliasing], which matches torch's rule.
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
        let layout = Self::layout(nbytes).ok_or_else(|| {
            Error::runtime(format!(
                "Storage size calculation overflowed: {nbytes} bytes"
            ))
        })?;
        // SAFETY: the layout's size is at least `HEADER` > 0.
        let raw = unsafe {
            if zeroed {
                alloc::alloc_zeroed(layout)
            } else {
                alloc::alloc(layout)
            }
        };
        let Some(block) = NonNull::new(raw.cast::<StorageHeader>()) else {
            return Err(Error::out_of_memory(format!(
                "failed to allocate {nbytes} bytes of tensor storage"
            )));
        };
        // SAFETY: `block` is a fresh allocation of at least `HEADER` bytes, aligned for the header.
        unsafe {
            block.as_ptr().write(StorageHeader {
                refcount: AtomicUsize::new(1),
                nbytes,
            })
        };
        let storage = Storage { block };
        advise_huge_pages(storage.as_ptr(), nbytes);
        Ok(storage)
    }

    /// The block's layout: the header, then `nbytes` rounded up to the alignment. Rust's system
    /// allocator serves `alloc_zeroed` with `calloc` only when the size is at least the
    /// alignment; rounding keeps every block on that path.
    fn layout(nbytes: usize) -> Option<Layout> {
        let size = nbytes
            .checked_next_multiple_of(STORAGE_ALIGN)?
            .checked_add(HEADER)?;
        Layout::from_size_align(size, STORAGE_ALIGN).ok()
    }

    fn header(&self) -> &StorageHeader {
        // SAFETY: the block stays allocated while any handle (`self`) is alive.
        unsafe { self.block.as_ref() }
    }

    /// Size of the buffer in bytes.
    pub fn nbytes(&self) -> usize {
        self.header().nbytes
    }

    /// Base address of the buffer (16-aligned). Writes through it follow Note [Storage aliasing].
    #[inline]
    pub fn as_ptr(&self) -> *mut u8 {
        // SAFETY: the data starts `HEADER` bytes into the block, inside the allocation.
        unsafe { self.block.as_ptr().cast::<u8>().add(HEADER) }
    }

    /// An identifier equal for handles to the same storage (its block address).
    pub fn id(&self) -> usize {
        self.block.as_ptr() as usize
    }

    /// True when another handle to these bytes exists (a view, or any other holder). A snapshot:
    /// only meaningful while no other thread can clone or drop a handle (`resize_` asks with the
    /// GIL held, and a handle cannot be made from nothing).
    pub fn is_shared(&self) -> bool {
        self.header().refcount.load(Ordering::Acquire) > 1
    }
}

impl Clone for Storage {
    /// Another handle to the same bytes (a reference-count increment, as `Arc::clone`).
    fn clone(&self) -> Storage {
        // Relaxed, as in `Arc::clone`: a new handle is made from an existing one, which already
        // keeps the block alive; no other memory needs ordering.
        let old = self.header().refcount.fetch_add(1, Ordering::Relaxed);
        if old > isize::MAX as usize {
            // 2^63 live handles cannot exist without a bug leaking them; `Arc` aborts here too.
            std::process::abort();
        }
        Storage { block: self.block }
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
        // Release/Acquire as in `Arc`'s drop: every write through another handle happens before
        // the block is freed by the last one.
        if self.header().refcount.fetch_sub(1, Ordering::Release) != 1 {
            return;
        }
        std::sync::atomic::fence(Ordering::Acquire);
        let layout = Self::layout(self.nbytes()).expect("layout was valid at allocation");
        // SAFETY: this was the last handle; the block came from `alloc`/`alloc_zeroed` with
        // exactly this layout and is freed once.
        unsafe { alloc::dealloc(self.block.as_ptr().cast::<u8>(), layout) };
    }
}

/// Releases the owner of external memory: run once, on whichever thread drops the last handle.
pub type ExternalOwner = Box<dyn FnOnce() + Send>;

/// Memory the core did not allocate — a numpy array's buffer, a DLPack producer's tensor, a
/// buffer-protocol export — shared by reference count like a `Storage`, with an owner released
/// exactly once when the last tensor or view over it dies (PyTorch: a `DataPtr` with a deleter
/// context, `at::from_blob`). The core never interprets the owner: it is a closure the binding
/// layer gives (which takes the GIL itself, since the last handle may die on any thread).
///
/// Note [External storage]: a tensor over external memory is a plain tensor to every kernel
/// (`StorageRef::External` in tensor.rs gives its base address like any storage); only its
/// lifetime differs. The creator guarantees the bytes stay valid and unmoved until the owner runs,
/// and that elements are aligned to their size (`Tensor::from_external` checks what it can:
/// bounds and alignment). Writes follow Note [Storage aliasing]; the producer may see them (that is
/// the point of sharing).
#[derive(Clone)]
pub struct ExternalStorage {
    block: std::sync::Arc<ExternalBlock>,
}

struct ExternalBlock {
    ptr: *mut u8,
    nbytes: usize,
    owner: Option<ExternalOwner>,
}

// SAFETY: the bytes follow Note [Storage aliasing]; the owner is `Send` and only taken in `drop`
// (`&mut self`), which no other thread can run concurrently.
unsafe impl Send for ExternalBlock {}
// SAFETY: shared access reads `ptr` and `nbytes` (immutable) and never touches the owner.
unsafe impl Sync for ExternalBlock {}

impl Drop for ExternalBlock {
    fn drop(&mut self) {
        if let Some(release) = self.owner.take() {
            release();
        }
    }
}

impl ExternalStorage {
    /// A storage over `nbytes` bytes at `ptr`, released by `owner` when the last handle goes.
    ///
    /// # Safety
    /// `ptr` is valid for reads and writes of `nbytes` bytes (or `nbytes` is 0) until `owner` runs,
    /// and nothing frees or moves the memory before then.
    pub unsafe fn new(ptr: *mut u8, nbytes: usize, owner: ExternalOwner) -> ExternalStorage {
        ExternalStorage {
            block: std::sync::Arc::new(ExternalBlock {
                ptr,
                nbytes,
                owner: Some(owner),
            }),
        }
    }

    /// Base address of the external bytes.
    #[inline]
    pub fn as_ptr(&self) -> *mut u8 {
        self.block.ptr
    }

    /// Size of the external buffer in bytes.
    pub fn nbytes(&self) -> usize {
        self.block.nbytes
    }

    /// An identifier equal for handles to the same storage (the block's address).
    pub fn id(&self) -> usize {
        std::sync::Arc::as_ptr(&self.block) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_share_one_block_and_free_it_once() {
        let a = Storage::zeroed(100).unwrap();
        assert_eq!(a.nbytes(), 100);
        assert_eq!(a.as_ptr() as usize % STORAGE_ALIGN, 0);
        // SAFETY: the buffer holds 100 zeroed bytes.
        assert!(unsafe { std::slice::from_raw_parts(a.as_ptr(), 100) }
            .iter()
            .all(|&b| b == 0));
        let b = a.clone();
        assert_eq!((a.id(), a.as_ptr()), (b.id(), b.as_ptr()));
        drop(a);
        // SAFETY: `b` keeps the block alive; 100 bytes are in bounds.
        unsafe { b.as_ptr().add(99).write(7) };
        assert_eq!(b.header().refcount.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn external_owner_runs_once_when_the_last_handle_goes() {
        use std::sync::atomic::AtomicUsize;
        use std::sync::Arc;
        let released = Arc::new(AtomicUsize::new(0));
        let mut bytes = vec![1u8, 2, 3, 4];
        let r = released.clone();
        // SAFETY: `bytes` outlives every handle (dropped at the end of the test).
        let a = unsafe {
            ExternalStorage::new(
                bytes.as_mut_ptr(),
                4,
                Box::new(move || {
                    r.fetch_add(1, Ordering::SeqCst);
                }),
            )
        };
        let b = a.clone();
        assert_eq!((a.id(), a.as_ptr(), a.nbytes()), (b.id(), b.as_ptr(), 4));
        drop(a);
        assert_eq!(released.load(Ordering::SeqCst), 0);
        let t = std::thread::spawn(move || drop(b));
        t.join().unwrap();
        assert_eq!(released.load(Ordering::SeqCst), 1);
        drop(bytes);
    }

    #[test]
    fn impossible_sizes_are_errors() {
        let e = Storage::zeroed(usize::MAX - 3).err().unwrap();
        assert_eq!(e.kind, crate::core::ErrorKind::Runtime);
    }
}
