//! Length-prefixed framing, the one codec every tabwire byte stream uses.
//!
//! Two framings share this module:
//!
//! * [`Framing::Socket`] — `serve` ⇄ `native-host`: a `u32` little-endian length,
//!   then that many bytes of UTF-8 JSON.
//! * [`Framing::Native`] — `native-host` ⇄ Chrome: the same shape, but the
//!   length is in the machine's native byte order (Chrome's rule).
//!
//! [`decode`] is pure (bytes in, frame / "need more" / error out, no I/O) so
//! it can be tested with split, truncated and hostile inputs. [`FrameReader`]
//! owns a stream and a buffer and turns the codec into "next frame, or clean
//! end of stream". The length header is checked against the limit *before*
//! anything is allocated for the body.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Default largest frame body: Chrome's own cap for extension → host messages.
pub const DEFAULT_MAX_FRAME: usize = 64 * 1024 * 1024;

/// Chrome disconnects the port when a host → extension message is larger.
pub const NATIVE_TO_CHROME_MAX: usize = 1024 * 1024;

const HEADER: usize = 4;

/// Which byte order the length header uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// u32 little-endian (the local socket between `serve` and `native-host`).
    Socket,
    /// u32 native-endian (Chrome native messaging).
    Native,
}

impl Framing {
    fn read_len(self, header: [u8; HEADER]) -> u32 {
        match self {
            Framing::Socket => u32::from_le_bytes(header),
            Framing::Native => u32::from_ne_bytes(header),
        }
    }

    fn write_len(self, len: u32) -> [u8; HEADER] {
        match self {
            Framing::Socket => len.to_le_bytes(),
            Framing::Native => len.to_ne_bytes(),
        }
    }
}

/// Why a frame was refused. Each one ends only the connection it came from.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("frame of {len} bytes exceeds the {max}-byte limit")]
    TooLarge { len: usize, max: usize },
    #[error("zero-length frame (a frame must carry a JSON message)")]
    Empty,
    #[error("stream ended in the middle of a frame ({got} of {want} bytes)")]
    Truncated { got: usize, want: usize },
    #[error("i/o error while reading or writing a frame: {0}")]
    Io(#[from] std::io::Error),
}

/// Result of looking at a buffer: a whole frame, or how much more is needed.
#[derive(Debug, PartialEq, Eq)]
pub enum Decoded<'a> {
    /// A complete frame body and the number of buffer bytes it consumed.
    Frame { body: &'a [u8], consumed: usize },
    /// Not enough bytes yet; at least `need` bytes in total are required.
    Incomplete { need: usize },
}

/// Decodes the first frame in `buf` without copying.
pub fn decode(buf: &[u8], framing: Framing, max: usize) -> Result<Decoded<'_>, FrameError> {
    let Some(header) = buf.get(..HEADER) else {
        return Ok(Decoded::Incomplete { need: HEADER });
    };
    let len = body_len(header.try_into().expect("4-byte slice"), framing, max)?;
    let total = HEADER + len;
    match buf.get(HEADER..total) {
        Some(body) => Ok(Decoded::Frame {
            body,
            consumed: total,
        }),
        None => Ok(Decoded::Incomplete { need: total }),
    }
}

/// Validates a length header against the limit.
fn body_len(header: [u8; HEADER], framing: Framing, max: usize) -> Result<usize, FrameError> {
    let len = framing.read_len(header) as usize;
    if len == 0 {
        return Err(FrameError::Empty);
    }
    if len > max {
        return Err(FrameError::TooLarge { len, max });
    }
    Ok(len)
}

/// Encodes one frame (header + body) into a fresh buffer.
pub fn encode(body: &[u8], framing: Framing, max: usize) -> Result<Vec<u8>, FrameError> {
    if body.is_empty() {
        return Err(FrameError::Empty);
    }
    if body.len() > max || body.len() > u32::MAX as usize {
        return Err(FrameError::TooLarge {
            len: body.len(),
            max,
        });
    }
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(&framing.write_len(body.len() as u32));
    out.extend_from_slice(body);
    Ok(out)
}

/// Writes one frame and flushes it.
pub async fn write_frame<W: AsyncWrite + Unpin>(
    w: &mut W,
    body: &[u8],
    framing: Framing,
    max: usize,
) -> Result<(), FrameError> {
    let bytes = encode(body, framing, max)?;
    w.write_all(&bytes).await?;
    w.flush().await?;
    Ok(())
}

/// Reads frames from a stream: `Ok(None)` on a clean end of stream (between
/// frames), an error when the stream ends inside a frame or a header is bad.
pub struct FrameReader<R> {
    inner: R,
    framing: Framing,
    max: usize,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    pub fn new(inner: R, framing: Framing, max: usize) -> Self {
        Self {
            inner,
            framing,
            max,
        }
    }

    pub async fn read_frame(&mut self) -> Result<Option<Vec<u8>>, FrameError> {
        let mut header = [0u8; HEADER];
        let got = read_full(&mut self.inner, &mut header).await?;
        if got == 0 {
            return Ok(None);
        }
        if got < HEADER {
            return Err(FrameError::Truncated { got, want: HEADER });
        }
        let len = body_len(header, self.framing, self.max)?;
        let mut body = vec![0u8; len];
        let got = read_full(&mut self.inner, &mut body).await?;
        if got < len {
            return Err(FrameError::Truncated {
                got: HEADER + got,
                want: HEADER + len,
            });
        }
        Ok(Some(body))
    }
}

/// Fills `buf` unless the stream ends first; returns how many bytes were read.
async fn read_full<R: AsyncRead + Unpin>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        let n = r.read(&mut buf[filled..]).await?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: usize = 16;

    fn header(len: u32) -> Vec<u8> {
        len.to_le_bytes().to_vec()
    }

    #[test]
    fn decodes_a_whole_frame_and_reports_consumed_bytes() {
        let mut buf = encode(b"{}", Framing::Socket, MAX).unwrap();
        buf.extend_from_slice(b"rest");
        assert_eq!(
            decode(&buf, Framing::Socket, MAX).unwrap(),
            Decoded::Frame {
                body: b"{}",
                consumed: 6
            }
        );
    }

    #[test]
    fn split_reads_ask_for_more_until_complete() {
        let buf = encode(b"[1,2,3]", Framing::Socket, MAX).unwrap();
        for cut in 0..buf.len() {
            match decode(&buf[..cut], Framing::Socket, MAX).unwrap() {
                Decoded::Incomplete { need } => assert!(need > cut),
                other => panic!("cut {cut}: expected Incomplete, got {other:?}"),
            }
        }
        assert!(matches!(
            decode(&buf, Framing::Socket, MAX).unwrap(),
            Decoded::Frame { .. }
        ));
    }

    #[test]
    fn exact_limit_is_accepted_and_one_more_is_refused_before_allocating() {
        let at_limit = vec![b' '; MAX];
        let buf = encode(&at_limit, Framing::Socket, MAX).unwrap();
        assert!(matches!(
            decode(&buf, Framing::Socket, MAX).unwrap(),
            Decoded::Frame { .. }
        ));
        // Only the header is present: the refusal must not wait for the body.
        let err = decode(&header(MAX as u32 + 1), Framing::Socket, MAX).unwrap_err();
        assert!(matches!(err, FrameError::TooLarge { len: 17, max: 16 }));
        assert!(encode(&[b' '; MAX + 1], Framing::Socket, MAX).is_err());
    }

    #[test]
    fn hostile_length_header_is_refused() {
        let err = decode(&[0xff, 0xff, 0xff, 0xff], Framing::Socket, MAX).unwrap_err();
        assert!(matches!(err, FrameError::TooLarge { .. }));
    }

    #[test]
    fn zero_length_is_refused() {
        assert!(matches!(
            decode(&header(0), Framing::Socket, MAX),
            Err(FrameError::Empty)
        ));
        assert!(matches!(
            encode(b"", Framing::Socket, MAX),
            Err(FrameError::Empty)
        ));
    }

    #[test]
    fn native_framing_uses_machine_byte_order() {
        let buf = encode(b"{}", Framing::Native, MAX).unwrap();
        assert_eq!(&buf[..4], &2u32.to_ne_bytes());
    }

    #[tokio::test]
    async fn reader_returns_frames_then_clean_end() {
        let mut bytes = encode(b"{\"a\":1}", Framing::Socket, MAX).unwrap();
        bytes.extend(encode(b"[]", Framing::Socket, MAX).unwrap());
        let mut r = FrameReader::new(&bytes[..], Framing::Socket, MAX);
        assert_eq!(r.read_frame().await.unwrap().unwrap(), b"{\"a\":1}");
        assert_eq!(r.read_frame().await.unwrap().unwrap(), b"[]");
        assert!(r.read_frame().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn reader_reassembles_byte_by_byte_delivery() {
        let bytes = encode(b"{\"split\":true}", Framing::Socket, MAX).unwrap();
        let (mut tx, rx) = tokio::io::duplex(1);
        let writer = tokio::spawn(async move {
            for b in bytes {
                tx.write_all(&[b]).await.unwrap();
            }
        });
        let mut r = FrameReader::new(rx, Framing::Socket, MAX);
        assert_eq!(r.read_frame().await.unwrap().unwrap(), b"{\"split\":true}");
        writer.await.unwrap();
        assert!(r.read_frame().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn reader_reports_truncation_inside_header_and_body() {
        let mut r = FrameReader::new(&[5u8, 0][..], Framing::Socket, MAX);
        assert!(matches!(
            r.read_frame().await,
            Err(FrameError::Truncated { got: 2, want: 4 })
        ));
        let mut short = header(5);
        short.extend_from_slice(b"ab");
        let mut r = FrameReader::new(&short[..], Framing::Socket, MAX);
        assert!(matches!(
            r.read_frame().await,
            Err(FrameError::Truncated { got: 6, want: 9 })
        ));
    }

    /// A small deterministic generator, so failures reproduce.
    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Random byte streams never panic the codec, and every frame it
    /// accepts respects the limit and the buffer's bounds.
    #[test]
    fn random_streams_never_panic_and_respect_limits() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let len = (rng.next() % 64) as usize;
            let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            for framing in [Framing::Socket, Framing::Native] {
                match decode(&bytes, framing, MAX) {
                    Ok(Decoded::Frame { body, consumed }) => {
                        assert!(!body.is_empty() && body.len() <= MAX);
                        assert!(consumed <= bytes.len());
                    }
                    Ok(Decoded::Incomplete { need }) => assert!(need > bytes.len()),
                    Err(_) => {}
                }
            }
        }
    }

    /// Any sequence of valid frames, cut at random points, reads back intact.
    #[tokio::test]
    async fn random_frames_survive_random_splits() {
        let mut rng = XorShift(42);
        for _ in 0..200 {
            let frames: Vec<Vec<u8>> = (0..(rng.next() % 5 + 1))
                .map(|_| {
                    (0..(rng.next() % MAX as u64 + 1))
                        .map(|_| rng.next() as u8)
                        .collect()
                })
                .collect();
            let mut stream = Vec::new();
            for f in &frames {
                stream.extend(encode(f, Framing::Socket, MAX).unwrap());
            }
            let (mut tx, rx) = tokio::io::duplex(7);
            let cuts: Vec<usize> = (0..4).map(|_| (rng.next() % 9 + 1) as usize).collect();
            let writer = tokio::spawn(async move {
                let mut at = 0;
                let mut i = 0;
                while at < stream.len() {
                    let end = (at + cuts[i % cuts.len()]).min(stream.len());
                    tx.write_all(&stream[at..end]).await.unwrap();
                    at = end;
                    i += 1;
                }
            });
            let mut r = FrameReader::new(rx, Framing::Socket, MAX);
            for f in &frames {
                assert_eq!(&r.read_frame().await.unwrap().unwrap(), f);
            }
            writer.await.unwrap();
            assert!(r.read_frame().await.unwrap().is_none());
        }
    }

    #[tokio::test]
    async fn reader_refuses_garbage_header() {
        let garbage = b"GET / HTTP/1.1\r\n\r\n";
        let mut r = FrameReader::new(&garbage[..], Framing::Socket, MAX);
        assert!(matches!(
            r.read_frame().await,
            Err(FrameError::TooLarge { .. })
        ));
    }
}
