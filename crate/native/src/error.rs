//! The ways a call fails: the caller's mistake, the OS's answer, or a file
//! that shrank while it was mapped.

use std::fmt;
use std::io;

/// Which JS error a bad argument becomes (napi layer): a value of the wrong
/// kind, or the right kind out of range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    Type,
    Range,
}

/// A caller mistake: the argument's JS-facing name and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidArg {
    pub arg: &'static str,
    pub kind: ArgKind,
    pub message: String,
}

impl InvalidArg {
    pub(crate) fn range(arg: &'static str, message: impl Into<String>) -> Self {
        InvalidArg { arg, kind: ArgKind::Range, message: message.into() }
    }

    pub(crate) fn type_(arg: &'static str, message: impl Into<String>) -> Self {
        InvalidArg { arg, kind: ArgKind::Type, message: message.into() }
    }
}

impl fmt::Display for InvalidArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InvalidArg {}

/// What a call that takes arguments and does I/O can fail with.
#[derive(Debug)]
pub enum Error {
    Arg(InvalidArg),
    Io(io::Error),
    /// A mapped file was truncated while it was being hashed (or was found
    /// shorter right after): the bytes past its new end read as zeros, so no
    /// digest is given (JS: a `code`
    /// ERR_FILE_TRUNCATED). Any hasher the bytes went into holds garbage.
    Truncated,
}

impl From<InvalidArg> for Error {
    fn from(e: InvalidArg) -> Self {
        Error::Arg(e)
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::Io(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Arg(e) => e.fmt(f),
            Error::Io(e) => e.fmt(f),
            Error::Truncated => f.write_str("the file shrank while it was mapped"),
        }
    }
}

impl std::error::Error for Error {}
