//! The writer `RunResult::write_summary` serializes the report into: it hands the bytes to a
//! Python callable a piece at a time (issue 28: the report of a million flows is more than
//! 2 GiB of JSON, never held whole).

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// A writer that hands what it is given to a Python callable, `chunk` bytes at a time
/// (`RunResult::write_summary`); the callable's exception is kept in `failed`.
pub(crate) struct Pieces<'py> {
    pub(crate) sink: Bound<'py, PyAny>,
    pub(crate) buf: Vec<u8>,
    pub(crate) chunk: usize,
    pub(crate) failed: Option<PyErr>,
}

impl Pieces<'_> {
    /// Hands the bytes held so far to the sink.
    pub(crate) fn hand_over(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let bytes = PyBytes::new(self.sink.py(), &self.buf);
        self.buf.clear();
        match self.sink.call1((bytes,)) {
            Ok(_) => Ok(()),
            Err(e) => {
                self.failed = Some(e);
                Err(std::io::Error::other("the sink raised an exception"))
            }
        }
    }
}

impl std::io::Write for Pieces<'_> {
    #[inline]
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        // the common case, a piece of a few bytes that leaves the buffer short of a chunk
        // (the JSON serializer's writes: issue 28, the report's fixed cost)
        if b.len() < self.chunk - self.buf.len() {
            self.buf.extend_from_slice(b);
            return Ok(b.len());
        }
        let mut rest = b;
        while !rest.is_empty() {
            let take = rest.len().min(self.chunk - self.buf.len());
            self.buf.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.buf.len() == self.chunk {
                self.hand_over()?;
            }
        }
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
