#!/usr/bin/env python3
"""Turns the published measurements (nccl-tests-calibration.csv, copied from
the project's shared reference data; each row names its source) into the
normalized points comm-sim calibrate reads (points.csv): one row per
(system, collective, ranks, size) with a numeric bus bandwidth and the
topology comm models the system with.

Interpretation choices, stated once here and in docs/CostModel.md:
- approximate figures ("~91") are read as their number;
- "threshold >=230" is read as a measured 230;
- "~160 intra / 24 inter" is two points: one machine (160) and two (24);
- "~96 peak (avg 84.8)" is read as the peak, 96;
- rows that give no size (maintainer statements about peak bandwidth) are
  placed at 8 GiB, and "multi-node" without a node count at 2 nodes.
Run: python3 normalize.py > points.csv
"""
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (substring of the hardware column, nodes column) -> (system, topology, ranks)
SYSTEMS = [
    ("1 node, 8x A100 SXM", "1", "A100 8-GPU (stas00 sweep)", "dgx-a100", 8),
    ("Azure ND A100 v4", "1", "Azure ND A100 v4", "dgx-a100", 8),
    ("Azure ND H100 v5", "1", "Azure ND H100 v5", "dgx-h100", 8),
    ("2x AWS p5.48xlarge", "2", "AWS p5 x2 (EFA)", "topologies/aws-p5.yaml:2", 16),
    ("4x AWS p5.48xlarge", "4", "AWS p5 x4 (EFA)", "topologies/aws-p5.yaml:4", 32),
    ("2 nodes HGX A100-SXM-80GB, 4x ConnectX-6", "2", "HGX A100 4xHDR x2", "topologies/hgx-a100-4nic.yaml:2", 16),
    ("2 nodes 8x A100, 4x 200G IB", "2", "HGX A100 4xHDR x2", "topologies/hgx-a100-4nic.yaml:2", 16),
    ("1 node 8x A100 (same system)", "1", "A100 8-GPU (user reports)", "dgx-a100", 8),
    ("DGX-A100 multi-node", "-1", "DGX A100 x2 (8xHDR)", "dgx-a100x2", 16),
    ("8x H100 NVSwitch single node", "1", "H100 8-GPU (maintainers)", "dgx-h100", 8),
    ("8x H100 single node", "1", "H100 8-GPU (maintainers)", "dgx-h100", 8),
    ("8x A800 NVLink, 1x HDR 200G per node", "-1", "A800 (split below)", "", 8),
    ("3 nodes x 8 A100-SXM4-40GB, 4x HDR", "3", "HGX A100 4xHDR x3", "topologies/hgx-a100-4nic.yaml:3", 24),
    ("Azure NDv4 8x A100 health-check", "1", "A100 8-GPU (user reports)", "dgx-a100", 8),
    ("8x AWS p5.48xlarge", "8", "AWS p5 x8 (EFA)", "topologies/aws-p5.yaml:8", 64),
    ("16x AWS p5.48xlarge", "16", "AWS p5 x16 (EFA)", "topologies/aws-p5.yaml:16", 128),
    ("32x AWS p5.48xlarge", "32", "AWS p5 x32 (EFA)", "topologies/aws-p5.yaml:32", 256),
    ("1 node GKE a4-highgpu-8g", "1", "GKE A4 8x B200", "topologies/gke-a4.yaml", 8),
    ("2x GKE a4-highgpu-8g", "2", "GKE A4 B200 x2 (RoCE)", "topologies/gke-a4.yaml:2", 16),
]

# Systems left out of the fit: the defaults in lib/CostModel/CostParams.cpp
# are fitted without them, so their error in the report is a hold-out error
# (how the model does on a system it was not fitted on). One of each kind:
# a multi-machine EFA cluster between two fitted scales, a single A100
# machine whose twin sweep is fitted, and one more A100 report.
HOLD_OUT = ["AWS p5 x16 (EFA)", "Azure ND A100 v4", "A100 8-GPU (user reports)"]

def number(text):
    m = re.search(r"[-+]?\d+(\.\d+)?", text)
    return float(m.group(0)) if m else None

def main():
    rows = list(csv.DictReader(open(os.path.join(HERE, "nccl-tests-calibration.csv"))))
    for system in HOLD_OUT:
        print("# hold-out: " + system)
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["system", "topology", "collective", "ranks", "size_bytes", "busbw_GBps", "source"])
    for index, row in enumerate(rows, start=2):
        match = [s for s in SYSTEMS if s[0] in row["hardware"] and s[1] == row["nodes"]]
        if not match:
            sys.exit("normalize.py: no system for row %d: %s" % (index, row["hardware"]))
        system, topology, ranks = match[0][2:]
        size = int(row["size_bytes"])
        if size <= 0:
            size = 8 << 30
        busbw = row["busbw_GBps"]
        source = "%s (row %d)" % (row["source"].split(" ")[0], index)
        if "intra" in busbw and "inter" in busbw:
            intra, inter = re.findall(r"\d+(?:\.\d+)?", busbw)[:2]
            out.writerow(["A800 8-GPU 1xHDR", "topologies/a800-1nic.yaml", "all_reduce", 8, size, intra, source])
            out.writerow(["A800 1xHDR x2", "topologies/a800-1nic.yaml:2", "all_reduce", 16, size, inter, source])
            continue
        value = number(busbw)
        if value is None:
            sys.exit("normalize.py: row %d has no bus bandwidth" % index)
        out.writerow([system, topology, "all_reduce", ranks, size, "%g" % value, source])

if __name__ == "__main__":
    main()
