//! What every comparison shares: the programs it measures, its two sides run in turn,
//! the load it ran under, and Markdown tables of the ratios of its rounds.

use std::io;
use std::path::{Path, PathBuf};

use super::stats;

/// Where the measured programs are: `dir`, or by default beside this program.
pub(crate) fn bin_dir(dir: Option<PathBuf>) -> io::Result<PathBuf> {
    match dir {
        Some(dir) => Ok(dir),
        None => std::env::current_exe()?
            .parent()
            .map(Path::to_path_buf)
            .ok_or_else(|| io::Error::other("this program has no directory")),
    }
}

/// The path of the program `name` in `dir`, which must be there.
pub(crate) fn program(dir: &Path, name: &str) -> io::Result<String> {
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if path.is_file() {
        Ok(path.to_string_lossy().into_owned())
    } else {
        Err(io::Error::other(format!(
            "`{}` is missing: build the servers first (cargo build --release -p mcp-bench)",
            path.display()
        )))
    }
}

/// Runs `a` and `b` in this order, or the other way round; the results as `[a, b]`.
pub(crate) fn pair<T>(
    swap: bool,
    mut a: impl FnMut() -> io::Result<T>,
    mut b: impl FnMut() -> io::Result<T>,
) -> io::Result<[T; 2]> {
    Ok(if swap {
        let second = b()?;
        [a()?, second]
    } else {
        let first = a()?;
        [first, b()?]
    })
}

/// Prints one run's line, labelled with its round.
pub(crate) fn say(round: usize, what: &str, line: &str) {
    println!("round {round} | {what:<32} | {line}");
}

/// Which way a ratio should go.
#[derive(Clone, Copy)]
pub(crate) enum Target {
    AtMost(f64),
    AtLeast(f64),
    None,
}

impl Target {
    fn text(self) -> String {
        match self {
            Self::AtMost(limit) => format!("≤ {limit}"),
            Self::AtLeast(limit) => format!("≥ {limit}"),
            Self::None => String::new(),
        }
    }

    fn met(self, ratio: f64) -> Option<bool> {
        match self {
            Self::AtMost(limit) => Some(ratio <= limit),
            Self::AtLeast(limit) => Some(ratio >= limit),
            Self::None => None,
        }
    }
}

/// One row of a comparison: a figure of each side per round.
pub(crate) struct Row {
    what: String,
    unit: &'static str,
    pairs: Vec<(f64, f64)>,
    target: Target,
}

impl Row {
    pub(crate) fn new<R>(
        what: impl Into<String>,
        unit: &'static str,
        target: Target,
        rounds: &[R],
        figure: impl Fn(&R) -> (f64, f64),
    ) -> Self {
        Self {
            what: what.into(),
            unit,
            pairs: rounds.iter().map(figure).collect(),
            target,
        }
    }

    fn ratios(&self) -> Vec<f64> {
        self.pairs.iter().map(|(a, b)| b / a).collect()
    }

    /// The Markdown row; whether its target was met, if it has one.
    fn markdown(&self) -> (String, Option<bool>) {
        let left: Vec<f64> = self.pairs.iter().map(|p| p.0).collect();
        let right: Vec<f64> = self.pairs.iter().map(|p| p.1).collect();
        let ratios = self.ratios();
        let ratio = stats::median(&ratios);
        let met = self.target.met(ratio);
        let verdict = match met {
            Some(true) => "met",
            Some(false) => "**missed**",
            None => "",
        };
        let per_round: Vec<String> = ratios.iter().map(|r| ratio_text(*r)).collect();
        (
            format!(
                "| {} | {} | {} | {} | {} {verdict} | {} |",
                self.what,
                figure(stats::median(&left), self.unit),
                figure(stats::median(&right), self.unit),
                ratio_text(ratio),
                self.target.text(),
                per_round.join(", "),
            ),
            met,
        )
    }
}

fn ratio_text(ratio: f64) -> String {
    if ratio.is_finite() {
        format!("{ratio:.2}")
    } else {
        "-".to_owned()
    }
}

fn figure(value: f64, unit: &str) -> String {
    if value.is_nan() {
        return "-".to_owned();
    }
    match unit {
        "calls/s" => format!("{value:.0} calls/s"),
        "MiB" => format!("{value:.1} MiB"),
        _ if value >= 100.0 => format!("{value:.0} {unit}"),
        _ => format!("{value:.2} {unit}"),
    }
}

/// Prints a Markdown table of `rows`, `right` against `left`; whether each row met its
/// target, if it has one.
pub(crate) fn table(title: &str, left: &str, right: &str, rows: &[Row]) -> Vec<Option<bool>> {
    println!();
    println!("### {title}");
    println!();
    println!(
        "| measure | {left} | {right} | {right} / {left} (median of rounds) | target | per round |"
    );
    println!("|---|---|---|---|---|---|");
    rows.iter()
        .map(|row| {
            let (line, met) = row.markdown();
            println!("{line}");
            met
        })
        .collect()
}

/// The system's load averages, which tell whether something else ran meanwhile.
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "-".to_owned(),
        |text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        },
    )
}
