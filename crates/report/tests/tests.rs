//! Integration tests of the renderers, in one binary:
//!
//! - `compare`: a results file written by the JSON report gives the
//!   comparison the run gives; a comparison's LaTeX and Markdown.
//!
//! Each renderer's own snapshots are unit tests beside it (`src/`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod compare;
