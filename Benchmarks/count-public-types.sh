#!/usr/bin/env bash
# Public types per module (what a user of the library can name): top-level and nested `public` struct, enum,
# class, protocol, actor and typealias declarations in each Sources/<module>, and their total. A type behind
# `@_spi(...)`, and every type nested in it, is not counted: only a file that imports the SPI by name sees it.
# usage: Benchmarks/count-public-types.sh [CHECKOUT]   (default: this one)
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
declaration='^[[:space:]]*(@[A-Za-z_().]+[[:space:]]+)*public[[:space:]]+(final[[:space:]]+)?(struct|enum|class|protocol|actor|typealias)[[:space:]]+[A-Za-z_]+'
for dir in "$root"/Sources/*/; do
  m=$(basename "$dir")
  n=$(find "$dir" -name '*.swift' -print0 | xargs -0 -r awk -v declaration="$declaration" '
    FNR == 1 { depth = 0; spiDepth = -1 }
    {
      line = $0
      sub(/\/\/.*/, "", line)  # comments (a brace in one is not code)
      if (spiDepth < 0 && line ~ declaration) {
        if (line ~ /@_spi\(/) spiDepth = depth; else count++
      }
      opened = gsub(/\{/, "{", line); closed = gsub(/\}/, "}", line)
      depth += opened - closed
      if (spiDepth >= 0 && depth <= spiDepth && (opened || closed)) spiDepth = -1
    }
    END { print count + 0 }')
  [ "${n:-0}" -gt 0 ] && echo "$m $n"
done | sort | awk '{ total += $2; print } END { print "total", total }'
