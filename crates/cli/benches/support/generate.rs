//! A seeded generator of TREC qrels and runs of a given shape, for the
//! benchmark and for scripts/bench/peers.sh. Files go under `target/`,
//! never into the repository.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The shape of a generated evaluation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// Number of queries.
    pub queries: usize,
    /// Documents retrieved per query.
    pub docs: usize,
    /// Relevant documents per query (graded 1 to 3); some are not retrieved.
    pub relevant: usize,
    /// Judged non-relevant documents per query.
    pub nonrelevant: usize,
    /// Share of scores equal to the one before (ties).
    pub ties: f64,
    /// Size of the document collection ids are drawn from.
    pub corpus: u64,
    /// Seed of the generator.
    pub seed: u64,
}

impl Shape {
    /// `queries` x `docs`, with 10 relevant and 20 judged non-relevant
    /// documents per query, 5% tied scores, from a collection of 8.8 M
    /// documents (MS MARCO's passage collection size).
    pub fn new(queries: usize, docs: usize) -> Self {
        Self {
            queries,
            docs,
            relevant: 10,
            nonrelevant: 20,
            ties: 0.05,
            corpus: 8_841_823,
            seed: 42,
        }
    }

    /// A short name, e.g. `7k_x_1000`.
    pub fn name(&self) -> String {
        let q = match self.queries {
            q if q >= 1_000_000 && q % 1_000_000 == 0 => format!("{}m", q / 1_000_000),
            q if q >= 1_000 && q % 1_000 == 0 => format!("{}k", q / 1_000),
            q => q.to_string(),
        };
        format!("{q}_x_{}", self.docs)
    }
}

/// xorshift64*: small, fast, and the same on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The files of a generated shape.
pub struct Generated {
    /// The qrels.
    pub qrels: PathBuf,
    /// The run.
    pub run: PathBuf,
}

/// Writes the qrels and run of `shape` under `dir` (unless they exist).
pub fn generate(shape: &Shape, dir: &Path) -> std::io::Result<Generated> {
    let base = dir.join(shape.name());
    std::fs::create_dir_all(&base)?;
    let files = Generated {
        qrels: base.join("qrels.txt"),
        run: base.join("run.trec"),
    };
    let done = base.join(".complete");
    if done.exists() {
        return Ok(files);
    }
    let mut rng = Rng::new(shape.seed);
    let mut qrels = BufWriter::with_capacity(1 << 20, File::create(&files.qrels)?);
    let mut run = BufWriter::with_capacity(1 << 20, File::create(&files.run)?);
    let mut docs: Vec<u64> = Vec::with_capacity(shape.docs);
    let mut seen = std::collections::HashSet::with_capacity(2 * shape.docs);
    for q in 0..shape.queries {
        let query = 1_000 + q;
        docs.clear();
        seen.clear();
        while docs.len() < shape.docs {
            let doc = rng.below(shape.corpus);
            if seen.insert(doc) {
                docs.push(doc);
            }
        }
        // Relevant: mostly among the retrieved, biased to the top; some not retrieved.
        for r in 0..shape.relevant {
            let doc = if r % 4 == 3 {
                rng.below(shape.corpus)
            } else {
                let rank = (rng.unit() * rng.unit() * shape.docs as f64) as usize;
                docs[rank.min(shape.docs - 1)]
            };
            writeln!(qrels, "{query} 0 D{doc:07} {}", 1 + rng.below(3))?;
        }
        for n in 0..shape.nonrelevant {
            // Half retrieved, half not.
            let doc = if n % 2 == 0 {
                docs[rng.below(shape.docs as u64) as usize]
            } else {
                rng.below(shape.corpus)
            };
            writeln!(qrels, "{query} 0 D{doc:07} 0")?;
        }
        let mut score = 20.0 + rng.unit() * 5.0;
        for (rank, doc) in docs.iter().enumerate() {
            if rank > 0 && rng.unit() >= shape.ties {
                score -= rng.unit() * 0.05;
            }
            writeln!(run, "{query} Q0 D{doc:07} {} {score:.6} bench", rank + 1)?;
        }
    }
    qrels.flush()?;
    run.flush()?;
    drop((qrels, run));
    dedupe_qrels(&files.qrels)?;
    File::create(done)?;
    Ok(files)
}

/// The generator may judge a document twice for one query; keep the first
/// judgement so the qrels are valid.
fn dedupe_qrels(path: &Path) -> std::io::Result<()> {
    let text = std::fs::read_to_string(path)?;
    let mut out = String::with_capacity(text.len());
    let mut seen = std::collections::HashSet::new();
    let mut current = "";
    for line in text.lines() {
        let mut fields = line.split(' ');
        let query = fields.next().unwrap_or("");
        let doc = fields.nth(1).unwrap_or("");
        if query != current {
            seen.clear();
            current = query;
        }
        if seen.insert(doc.to_owned()) {
            out.push_str(line);
            out.push('\n');
        }
    }
    std::fs::write(path, out)
}
