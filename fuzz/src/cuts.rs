//! Split points chosen by one seed byte: the harnesses feed a stream to a parser in pieces of
//! these lengths, so every parser that keeps state across reads is driven across every kind of
//! boundary without the fuzzer spending input bytes on where to cut.

/// Piece lengths from a seed: the top three bits pick the largest piece (1, 2, 3, 7, 16, 64,
/// 1024 or 65536 bytes), the rest seed a xorshift generator.
pub(crate) struct Cuts {
    state: u64,
    max: u64,
}

impl Cuts {
    pub(crate) fn new(seed: u8) -> Self {
        let max = [1, 2, 3, 7, 16, 64, 1024, 65536][usize::from(seed >> 5)];
        Self {
            state: 0x9e37_79b9_7f4a_7c15 ^ u64::from(seed).wrapping_mul(0x2545_f491_4f6c_dd1d),
            max,
        }
    }

    /// Pieces for a stream of `len` bytes: as [`Self::new`], but a stream above 64 KiB is cut
    /// into pieces of up to 1 KiB at least, so that a long input costs time in the parser, not
    /// in the cutting.
    pub(crate) fn for_stream(seed: u8, len: usize) -> Self {
        let mut cuts = Self::new(seed);
        if len > 65536 {
            cuts.max = cuts.max.max(1024);
        }
        cuts
    }

    /// The next piece length, 1 to the seed's largest.
    pub(crate) fn next_len(&mut self) -> usize {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        usize::try_from(1 + self.state % self.max).unwrap_or(1)
    }

    /// `bytes` cut into consecutive pieces.
    pub(crate) fn split<'a>(&mut self, mut bytes: &'a [u8]) -> Vec<&'a [u8]> {
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let (piece, rest) = bytes.split_at(self.next_len().min(bytes.len()));
            out.push(piece);
            bytes = rest;
        }
        out
    }
}

/// A `Read` that hands out its bytes in the pieces [`Cuts`] chooses, as a socket would.
pub(crate) struct PieceReader<'a> {
    bytes: &'a [u8],
    cuts: Cuts,
}

impl<'a> PieceReader<'a> {
    pub(crate) fn new(bytes: &'a [u8], seed: u8) -> Self {
        Self {
            bytes,
            cuts: Cuts::for_stream(seed, bytes.len()),
        }
    }
}

impl std::io::Read for PieceReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.cuts.next_len().min(buf.len()).min(self.bytes.len());
        let (piece, rest) = self.bytes.split_at(n);
        buf[..n].copy_from_slice(piece);
        self.bytes = rest;
        Ok(n)
    }
}
