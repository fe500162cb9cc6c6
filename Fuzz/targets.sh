#!/usr/bin/env bash
# The fuzz targets, one per line: every executable of Fuzz/Package.swift.
grep -oE 'name: "Fuzz[A-Za-z0-9]+"' "$(dirname "$0")/Package.swift" | cut -d'"' -f2 | grep -v '^FuzzSupport$'
