use std::collections::{BTreeMap, HashMap};

use mcp_runtime::mcp_tool;

#[derive(schemars::JsonSchema)]
struct Point {
    x: i64,
}

/// Sums the x of the points in a map.
#[mcp_tool(namespace = "ui")]
fn sum_map(points: HashMap<String, Point>) -> i64 {
    points.values().map(|point| point.x).sum()
}

/// The x of a point, if any.
#[mcp_tool(namespace = "ui")]
fn maybe_x(point: Option<Point>) -> i64 {
    point.map_or(0, |point| point.x)
}

/// Sums the x of points grouped by name.
#[mcp_tool(namespace = "ui")]
fn sum_groups(groups: BTreeMap<String, Vec<Point>>) -> i64 {
    groups.values().flatten().map(|point| point.x).sum()
}

/// Sums the x of a pair and a tally.
#[mcp_tool(namespace = "ui")]
fn sum_pair(pair: (i64, Point)) -> i64 {
    pair.0 + pair.1.x
}

fn main() {}
