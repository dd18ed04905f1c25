#!/usr/bin/env bash
# Runs the performance profile (io.cqlrows.bench.Profile) on JDK 17 and on a JDK 25, from one
# benchmarks jar built for Java 17, and writes parser-bench/results/profile-<jdk>.json for each
# (the whole JMH output goes to parser-bench/target/profile-<jdk>.txt),
# then the chart of docs/performance.md. The JDK 25 is $JAVA25_HOME, else the first JDK 25 under
# /usr/lib/jvm; without one, JDK 17 alone is measured. Run it when nothing else runs.
#
#   mvn -q -DskipTests package && parser-bench/profile-jdks.sh [warmup-s measure-s]
set -euo pipefail
cd "$(dirname "$0")/.."
jar=parser-bench/target/benchmarks.jar
out=parser-bench/results
mkdir -p "$out"
java25="${JAVA25_HOME:-$(ls -d /usr/lib/jvm/*-25-* 2>/dev/null | head -n 1)}"
java -cp "$jar" io.cqlrows.bench.Profile "$@" --json "$out/profile-17.json" | tee parser-bench/target/profile-17.txt
if [ -n "$java25" ]; then
  java -cp "$jar" io.cqlrows.bench.Profile "$@" --jvm "$java25" --json "$out/profile-25.json" \
    | tee parser-bench/target/profile-25.txt
fi
python3 parser-bench/chart.py "$out"/profile-*.json > docs/performance.svg
echo "wrote $out/profile-*.json and docs/performance.svg"
