//! The bytes of an event stream, bounded before they are parsed: an event that grows past a
//! limit (a blank line not yet come after that many bytes, comments and field names
//! counted) is refused while it streams, instead of being held whole. The bytes are passed
//! on in whole lines, so that the event parser, which parses its buffer again for each
//! piece it is given, reads each line once however the network cut it.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use futures_util::Stream;

/// Why a bounded stream ended.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BoundError<E> {
    /// The stream under it failed.
    #[error(transparent)]
    Transport(E),
    /// An event was still not ended after this many bytes.
    #[error("an event still not ended after {0} bytes")]
    TooLong(usize),
}

/// `stream`'s bytes in whole lines, refused once an event outgrows `limit`.
pub(crate) struct Bounded<S> {
    stream: S,
    limit: usize,
    /// What came after the last line end passed on.
    pending: BytesMut,
    /// The bytes of the event being read, so far.
    in_event: usize,
    /// The length of the line being read, so far.
    in_line: usize,
    /// Whether the last byte was a carriage return, which a line feed may follow as part
    /// of the same line end.
    after_cr: bool,
    /// Whether the stream ended, or was refused.
    done: bool,
}

impl<S> Bounded<S> {
    pub(crate) fn new(stream: S, limit: usize) -> Self {
        Self {
            stream,
            limit,
            pending: BytesMut::new(),
            in_event: 0,
            in_line: 0,
            after_cr: false,
            done: false,
        }
    }

    /// Counts `chunk` into the event being read; `false` once it outgrows the limit.
    fn count(&mut self, chunk: &[u8]) -> bool {
        for &byte in chunk {
            self.in_event += 1;
            match byte {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\r' | b'\n' => {
                    // A blank line ends the event.
                    if self.in_line == 0 {
                        self.in_event = 0;
                    }
                    self.in_line = 0;
                    self.after_cr = byte == b'\r';
                }
                _ => {
                    self.in_line += 1;
                    self.after_cr = false;
                }
            }
            if self.in_event > self.limit {
                return false;
            }
        }
        true
    }

    /// What of the pending bytes ends a line and can be passed on: up to the last line
    /// feed, or the last carriage return whose next byte is known (so that a CRLF is never
    /// cut in two). Only the bytes from `from` on are looked at: before them, none could
    /// be passed on (a carriage return at the very end aside, which is looked at again).
    fn whole_lines(&mut self, from: usize) -> Option<Bytes> {
        let pending = &self.pending[..];
        let from = from.saturating_sub(1);
        let end = pending[from..]
            .iter()
            .enumerate()
            .rev()
            .find_map(|(at, &byte)| {
                let at = from + at;
                (byte == b'\n' || (byte == b'\r' && at + 1 < pending.len())).then_some(at + 1)
            })?;
        Some(self.pending.split_to(end).freeze())
    }
}

impl<S, E> Stream for Bounded<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    type Item = Result<Bytes, BoundError<E>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        loop {
            match Pin::new(&mut this.stream).poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Err(err))) => {
                    this.done = true;
                    return Poll::Ready(Some(Err(BoundError::Transport(err))));
                }
                Poll::Ready(Some(Ok(chunk))) => {
                    if !this.count(&chunk) {
                        this.done = true;
                        this.pending = BytesMut::new();
                        return Poll::Ready(Some(Err(BoundError::TooLong(this.in_event))));
                    }
                    let from = this.pending.len();
                    this.pending.extend_from_slice(&chunk);
                    if let Some(lines) = this.whole_lines(from) {
                        return Poll::Ready(Some(Ok(lines)));
                    }
                }
                Poll::Ready(None) => {
                    this.done = true;
                    if this.pending.is_empty() {
                        return Poll::Ready(None);
                    }
                    return Poll::Ready(Some(Ok(std::mem::take(&mut this.pending).freeze())));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;

    use super::*;

    /// What `chunks` become through a bound of `limit`: the pieces passed on, then `Err`
    /// with the length at which it was refused.
    fn through(chunks: &[&[u8]], limit: usize) -> (Vec<Vec<u8>>, Option<usize>) {
        let stream = futures_util::stream::iter(
            chunks
                .iter()
                .map(|chunk| Ok::<_, std::io::Error>(Bytes::copy_from_slice(chunk)))
                .collect::<Vec<_>>(),
        );
        let mut bounded = Bounded::new(stream, limit);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut passed = Vec::new();
            while let Some(piece) = bounded.next().await {
                match piece {
                    Ok(piece) => passed.push(piece.to_vec()),
                    Err(BoundError::TooLong(length)) => return (passed, Some(length)),
                    Err(BoundError::Transport(err)) => panic!("{err}"),
                }
            }
            (passed, None)
        })
    }

    #[test]
    fn lines_are_passed_on_whole_and_a_crlf_is_never_cut() {
        let (passed, refused) = through(&[b"data: a", b"b\r", b"\ndata: c\n\nda", b"ta"], 100);
        assert_eq!(refused, None);
        assert_eq!(
            passed,
            [b"data: ab\r\ndata: c\n\n".to_vec(), b"data".to_vec(),]
        );
    }

    #[test]
    fn an_event_past_the_limit_is_refused_and_a_blank_line_starts_the_count_again() {
        // Each event of 11 bytes, under a limit of 12: never refused.
        let events: Vec<&[u8]> = vec![b"data: 1234\n\n"; 50];
        assert_eq!(through(&events, 12).1, None);
        // Endless data, or endless comments with no blank line: refused past the limit.
        let (_, refused) = through(&[b"data: ", &[b'x'; 40]], 32);
        assert_eq!(refused, Some(33));
        let comments: Vec<&[u8]> = vec![b": keep reading\n"; 10];
        assert_eq!(through(&comments, 100).1, Some(101));
        // Each kind of line end ends a blank line.
        for blank in [&b"a\r\rb"[..], b"a\n\nb", b"a\r\n\r\nb"] {
            let chunks: Vec<&[u8]> = vec![blank; 30];
            assert_eq!(through(&chunks, 8).1, None, "{blank:?}");
        }
    }

    #[test]
    fn nothing_is_read_after_a_refusal() {
        let (passed, refused) = through(&[b"data: x\n", &[b'y'; 20], b"\n\ndata: z\n\n"], 16);
        assert_eq!(passed, [b"data: x\n".to_vec()]);
        assert_eq!(refused, Some(17));
    }
}
