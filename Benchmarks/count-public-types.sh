#!/usr/bin/env bash
# Public types per module (what a user of the library can name): top-level and nested `public` struct, enum,
# class, protocol, actor and typealias declarations in each Sources/<module>, and their total.
# usage: Benchmarks/count-public-types.sh [CHECKOUT]   (default: this one)
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
for dir in "$root"/Sources/*/; do
  m=$(basename "$dir")
  n=$(grep -rhoE "^\s*(@[A-Za-z_(). ]+\s+)*public\s+(final\s+)?(struct|enum|class|protocol|actor|typealias)\s+[A-Za-z_]+" "$dir" --include=*.swift 2>/dev/null | wc -l)
  [ "$n" -gt 0 ] && echo "$m $n"
done | sort | awk '{ total += $2; print } END { print "total", total }'
