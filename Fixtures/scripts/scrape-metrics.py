#!/usr/bin/env python3
"""Scrapes a Prometheus text endpoint and parses it with Python's prometheus_client (the reference parser).

    scrape-metrics.py URL

Prints one line per sample, `NAME{LABEL=VALUE,...} VALUE` with the labels sorted; exits non-zero when the
text does not parse. Run with .build/metrics-venv/bin/python (bash scripts/test makes it).
"""
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

text = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode("utf-8")
for family in text_string_to_metric_families(text):
    for sample in family.samples:
        labels = ",".join(f"{key}={value}" for key, value in sorted(sample.labels.items()))
        print(f"{sample.name}{{{labels}}} {sample.value}")
