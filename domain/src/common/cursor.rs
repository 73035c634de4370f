//! The one cursor of the newest-first logs (the audit log, a webhook endpoint's delivery log): where a page
//! starts, just after the row it names by its time and id. Clients see it as `<milliseconds>.<id>`, an
//! opaque text they hand back.

use std::fmt;

/// An id a cursor can name: written into the cursor's text and read back from it.
pub trait CursorId: Sized + fmt::Display {
    /// The id of its text, `None` for one this log never makes.
    fn parse_id(text: &str) -> Option<Self>;
}

/// Where a page starts: just after the row of time `at_millis` and id `id`, in newest-first order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor<Id> {
    pub at_millis: i64,
    pub id: Id,
}

impl<Id: CursorId> Cursor<Id> {
    /// The cursor of its text (`<milliseconds>.<id>`), `None` for a text no page answered.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let (millis, id) = text.trim().split_once('.')?;
        Some(Self {
            at_millis: millis.parse().ok()?,
            id: Id::parse_id(id)?,
        })
    }
}

impl<Id: CursorId> fmt::Display for Cursor<Id> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.at_millis, self.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Eq)]
    struct Digits(u32);

    impl fmt::Display for Digits {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.fmt(f)
        }
    }

    impl CursorId for Digits {
        fn parse_id(text: &str) -> Option<Self> {
            text.parse().ok().map(Self)
        }
    }

    #[test]
    fn a_cursor_reads_back_what_it_wrote_and_nothing_else() {
        let cursor = Cursor {
            at_millis: 1_700_000_000_123,
            id: Digits(42),
        };
        assert_eq!(cursor.to_string(), "1700000000123.42");
        assert_eq!(Cursor::parse(&cursor.to_string()), Some(cursor));
        for bad in ["", "42", "x.42", "1700000000123.x", "1700000000123."] {
            assert_eq!(Cursor::<Digits>::parse(bad), None, "{bad}");
        }
    }
}
