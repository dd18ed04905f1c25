package io.cqlrows.bench;

import io.cqlrows.bench.rows.RowsShape;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The short profile of the performance targets: runs the benchmarks behind every target once (one
 * fork, short iterations, {@code -prof gc}), then prints each figure and the ratios against both
 * baselines, the Java driver and the copy floors, with the target and whether this run met it.
 * Takes about five minutes on the 2-core machine; figures are noisy, ratios from the same run less
 * so.
 *
 * <pre>
 * mvn -q -DskipTests package
 * java -cp parser-bench/target/benchmarks.jar io.cqlrows.bench.Profile [warmup-s measure-s]
 *     [--jvm JAVA_HOME] [--json FILE]
 * </pre>
 *
 * <p>{@code --jvm} runs the benchmark forks on another JDK (its home, or its {@code java}), so one
 * jar built for Java 17 measures JDK 17 and, say, {@code --jvm $JAVA25_HOME} JDK 25; {@code
 * parser-bench/profile-jdks.sh} runs both. {@code --json} also writes every figure and ratio, with
 * the JDK, to a file that {@code parser-bench/chart.py} turns into the SVG of {@code
 * docs/performance.md}.
 */
public final class Profile {
  private static final String VECTOR = "VECTOR_1536F";
  private static final String MIXED = "MIXED_SCALARS";
  private static final String CORPUS = "CORPUS_SCALARS";

  /** A benchmark method, its shape parameter and its other parameters, if any. */
  private record Key(String benchmark, String shape, String variant) {}

  /** What a run measured; CPU time per op from {@link CpuTimeProfiler} (steady under load). */
  private record Figure(double opsPerSecond, double error, double bytesPerOp, double cpuNanos) {}

  /** One line of the verdicts, for {@code --json}. */
  private record Ratio(String label, double ratio, double cpuRatio, double target) {}

  private final Map<Key, Figure> figures = new LinkedHashMap<>();
  private final int warmupSeconds;
  private final int measureSeconds;

  /** The {@code java} of the forks, or null for this JVM's. */
  private final String jvm;

  private final List<String> verdicts = new ArrayList<>();
  private final List<Ratio> ratios = new ArrayList<>();

  private Profile(int warmupSeconds, int measureSeconds, String jvm) {
    this.warmupSeconds = warmupSeconds;
    this.measureSeconds = measureSeconds;
    this.jvm = jvm;
  }

  public static void main(String[] args) throws RunnerException, IOException {
    List<String> numbers = new ArrayList<>();
    String jvm = null;
    Path json = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--jvm" -> jvm = javaOf(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        default -> numbers.add(args[i]);
      }
    }
    int warmup = numbers.size() > 0 ? Integer.parseInt(numbers.get(0)) : 5;
    int measure = numbers.size() > 1 ? Integer.parseInt(numbers.get(1)) : 5;
    Profile p = new Profile(warmup, measure, jvm);
    p.run("FloorBenchmark\\.(byteSwap|copyBytes)$", VECTOR + "," + MIXED);
    p.run("DriverBaselineBenchmark\\.(decodeAll|decodeAllFloatArrays)$", VECTOR + "," + MIXED);
    p.run("DriverBaselineBenchmark\\.(decodeAll|decodeAllTyped|rowsGetObject)$", CORPUS);
    p.run("DriverBaselineBenchmark\\.rowsGetObject$", MIXED);
    p.run("DriverBaselineBenchmark\\.(decodeAllMixedGetters|rowsMixedGetters)$", MIXED);
    p.run(
        "RowsParserBenchmark\\.(parseColumnarReused|parseColumnar|parseRows|parseToBlackhole)$",
        VECTOR);
    p.run(
        "RowsParserBenchmark\\.(parseRows|parseColumnarPrimitives|parseRowsMixedGetters)$", MIXED);
    p.run(
        "RowsParserBenchmark\\.(parseRowsTypedGetters|parseRowsGetObject|parseToBlackhole)$",
        MIXED + "," + CORPUS);
    p.run(
        "LazyRowsBenchmark\\.(indexOnly|typedGetters|getObject|twoColumns)$", MIXED + "," + CORPUS);
    p.run("LazyRowsBenchmark\\.mixedGetters$", MIXED);
    p.run("LazyRowsBenchmark\\.vectorRows$", VECTOR);
    p.run("DriverBaselineBenchmark\\.(decodeTwoColumns|rowsTwoColumns)$", MIXED + "," + CORPUS);
    p.run("DriverBaselineBenchmark\\.decodeAllTyped$", MIXED);
    p.run("SimdBenchmark\\.(parseColumnarReused|simdFloor)$", VECTOR);
    p.run(
        "PipelineBenchmark\\.(pipeline|lz4DecompressOnly|v5Crc32Only|v5Crc32HeapArrays)$", VECTOR);
    p.report();
    if (json != null) {
      p.writeJson(json);
    }
  }

  /** The {@code java} executable of a JDK home, or {@code path} itself if it is one. */
  private static String javaOf(String path) {
    Path p = Path.of(path);
    Path java = p.resolve("bin").resolve("java");
    return Files.isExecutable(java) ? java.toString() : p.toString();
  }

  /** The JDK the forks run on, as {@code java -version}'s first line says it. */
  private String jdk() throws IOException {
    if (jvm == null) {
      return System.getProperty("java.vm.name") + " " + System.getProperty("java.version");
    }
    Process version = new ProcessBuilder(jvm, "-version").redirectErrorStream(true).start();
    String first =
        new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
            .lines()
            .findFirst()
            .orElse(jvm);
    return first.strip();
  }

  /** Every figure and ratio of the run, and the JDK, as JSON. */
  private void writeJson(Path file) throws IOException {
    StringBuilder sb = new StringBuilder("{\"jdk\":").append(quote(jdk())).append(",\"ratios\":[");
    for (int i = 0; i < ratios.size(); i++) {
      Ratio r = ratios.get(i);
      sb.append(i > 0 ? "," : "")
          .append(
              String.format(
                  Locale.ROOT,
                  "{\"label\":%s,\"ratio\":%s,\"cpuRatio\":%s,\"target\":%s}",
                  quote(r.label()),
                  number(r.ratio()),
                  number(r.cpuRatio()),
                  number(r.target())));
    }
    sb.append("],\"figures\":[");
    int i = 0;
    for (Map.Entry<Key, Figure> e : figures.entrySet()) {
      Figure f = e.getValue();
      sb.append(i++ > 0 ? "," : "")
          .append(
              String.format(
                  Locale.ROOT,
                  "{\"benchmark\":%s,\"shape\":%s,\"variant\":%s,\"opsPerSecond\":%s,"
                      + "\"error\":%s,\"bytesPerOp\":%s,\"cpuNanosPerOp\":%s}",
                  quote(e.getKey().benchmark),
                  quote(e.getKey().shape),
                  quote(e.getKey().variant),
                  number(f.opsPerSecond),
                  number(f.error),
                  number(f.bytesPerOp),
                  number(f.cpuNanos)));
    }
    Files.writeString(file, sb.append("]}\n"), StandardCharsets.UTF_8);
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static String number(double d) {
    return Double.isFinite(d) ? Double.toString(d) : "null";
  }

  private void run(String include, String shapes) throws RunnerException {
    ChainedOptionsBuilder options =
        new OptionsBuilder()
            .include(include)
            .param("shape", shapes.split(","))
            .param("vectorShape", VECTOR)
            .param("direct", "false")
            .forks(1)
            .warmupIterations(warmupSeconds)
            .warmupTime(TimeValue.seconds(1))
            .measurementIterations(measureSeconds)
            .measurementTime(TimeValue.seconds(1))
            .timeUnit(TimeUnit.SECONDS)
            .addProfiler(GCProfiler.class)
            .addProfiler(CpuTimeProfiler.class);
    if (jvm != null) {
      options.jvm(jvm);
    }
    Collection<RunResult> results = new Runner(options.build()).run();
    for (RunResult r : results) {
      String name = r.getParams().getBenchmark();
      name = name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1);
      String shape = r.getParams().getParam("shape");
      for (String other : new String[] {"vectorShape", "mixedShape"}) {
        if (shape == null) {
          shape = r.getParams().getParam(other);
        }
      }
      String variant = "";
      for (String extra : new String[] {"encoding", "lz4Encoding"}) {
        String v = r.getParams().getParam(extra);
        if (v != null) {
          variant = v;
        }
      }
      Result<?> primary = r.getPrimaryResult();
      Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
      Result<?> cpu = r.getSecondaryResults().get("cpu.time.norm");
      figures.put(
          new Key(name, shape, variant),
          new Figure(
              primary.getScore(),
              primary.getScoreError(),
              alloc == null ? Double.NaN : alloc.getScore(),
              cpu == null ? Double.NaN : cpu.getScore()));
    }
  }

  /**
   * {@code benchmark} may name a variant after a slash: {@code "PipelineBenchmark.pipeline/V4"}.
   */
  private Figure get(String benchmark, String shape) {
    int slash = benchmark.indexOf('/');
    return slash < 0
        ? figures.get(new Key(benchmark, shape, ""))
        : figures.get(
            new Key(benchmark.substring(0, slash), shape, benchmark.substring(slash + 1)));
  }

  /** Throughput ratio, and the same ratio from CPU time per operation (steadier under load). */
  private void ratio(String label, String shape, String ours, String baseline, double target) {
    ratio(label, shape, ours, baseline, target, false);
  }

  /** As above; with {@code byCpu} the verdict is on the CPU-time ratio. */
  private void ratio(
      String label, String shape, String ours, String baseline, double target, boolean byCpu) {
    Figure a = get(ours, shape);
    Figure b = get(baseline, shape);
    if (a == null || b == null) {
      verdicts.add(String.format(Locale.ROOT, "%-62s  (not measured)", label));
      return;
    }
    double r = a.opsPerSecond / b.opsPerSecond;
    double cpu = b.cpuNanos / a.cpuNanos;
    ratios.add(new Ratio(label, r, cpu, target));
    verdicts.add(
        String.format(
            Locale.ROOT,
            "%-62s %6.2fx (cpu %5.2fx)  target >= %.1fx%s  %s",
            label,
            r,
            cpu,
            target,
            byCpu ? " cpu" : "",
            (byCpu ? cpu : r) >= target ? "met" : "NOT MET"));
  }

  /**
   * As {@link #ratio}, against doing both baselines one after the other: their times per operation
   * added ({@code 1 / (1/a + 1/b)} in throughput).
   */
  private void ratioToSum(
      String label, String shape, String ours, String first, String second, double target) {
    Figure a = get(ours, shape);
    Figure b = get(first, shape);
    Figure c = get(second, shape);
    if (a == null || b == null || c == null) {
      verdicts.add(String.format(Locale.ROOT, "%-62s  (not measured)", label));
      return;
    }
    double r = (1 / b.opsPerSecond + 1 / c.opsPerSecond) * a.opsPerSecond;
    double cpu = (b.cpuNanos + c.cpuNanos) / a.cpuNanos;
    ratios.add(new Ratio(label, r, cpu, target));
    verdicts.add(
        String.format(
            Locale.ROOT,
            "%-62s %6.2fx (cpu %5.2fx)  target >= %.1fx  %s",
            label,
            r,
            cpu,
            target,
            r >= target ? "met" : "NOT MET"));
  }

  private void allocation(
      String label, String shape, String ours, String baseline, double maxFraction) {
    Figure a = get(ours, shape);
    Figure b = get(baseline, shape);
    if (a == null || b == null) {
      return;
    }
    int rows = RowsShape.valueOf(shape).rows();
    double r = a.bytesPerOp / b.bytesPerOp;
    verdicts.add(
        String.format(
            Locale.ROOT,
            "%-62s %6.2f  (%.0f vs %.0f B/row) target <= %.2f  %s",
            label,
            r,
            a.bytesPerOp / rows,
            b.bytesPerOp / rows,
            maxFraction,
            r <= maxFraction ? "met" : "NOT MET"));
  }

  /** The lazy page against the driver, and its vector rows against the floor. */
  private void lazyRatios(String floor, String driverAll, String driverTyped, String driverRows) {
    String lazy = "LazyRowsBenchmark.";
    String twoCodecs = "DriverBaselineBenchmark.decodeTwoColumns";
    String twoRows = "DriverBaselineBenchmark.rowsTwoColumns";
    ratio(
        "mixed scalars -> lazy page, typed getters / driver's codecs, typed",
        MIXED,
        lazy + "mixedGetters",
        "DriverBaselineBenchmark.decodeAllMixedGetters",
        3);
    ratio(
        "mixed scalars -> lazy page, typed getters / driver's Row getters",
        MIXED,
        lazy + "mixedGetters",
        "DriverBaselineBenchmark.rowsMixedGetters",
        3);
    ratio(
        "mixed scalars -> lazy page, typed getters (loop) / driver's codecs, typed",
        MIXED,
        lazy + "typedGetters",
        driverTyped,
        3);
    ratio(
        "mixed scalars -> lazy page, getObject / driver's codecs",
        MIXED,
        lazy + "getObject",
        driverAll,
        2.5);
    ratio(
        "mixed scalars -> lazy page, getObject / driver's Row.getObject",
        MIXED,
        lazy + "getObject",
        driverRows,
        2.5);
    ratio(
        "mixed scalars -> lazy page, 2 of 10 columns / driver's codecs",
        MIXED,
        lazy + "twoColumns",
        twoCodecs,
        8);
    ratio(
        "mixed scalars -> lazy page, 2 of 10 columns / driver's Row getters",
        MIXED,
        lazy + "twoColumns",
        twoRows,
        8);
    ratio(
        "mixed scalars -> lazy page, index alone / driver's codecs, typed (bound)",
        MIXED,
        lazy + "indexOnly",
        driverTyped,
        0);
    allocation(
        "mixed scalars -> lazy page, typed getters: bytes per row / driver's",
        MIXED,
        lazy + "mixedGetters",
        "DriverBaselineBenchmark.decodeAllMixedGetters",
        1.0 / 3);
    ratio(
        "corpus scalars -> lazy page, typed getters / driver's codecs, typed",
        CORPUS,
        lazy + "typedGetters",
        driverTyped,
        3);
    ratio(
        "corpus scalars -> lazy page, getObject / driver's codecs",
        CORPUS,
        lazy + "getObject",
        driverAll,
        2.5);
    ratio(
        "corpus scalars -> lazy page, getObject / driver's Row.getObject",
        CORPUS,
        lazy + "getObject",
        driverRows,
        2.5);
    ratio(
        "corpus scalars -> lazy page, 2 of 21 columns / driver's codecs",
        CORPUS,
        lazy + "twoColumns",
        twoCodecs,
        8);
    ratio(
        "corpus scalars -> lazy page, 2 of 21 columns / driver's Row getters",
        CORPUS,
        lazy + "twoColumns",
        twoRows,
        8);
    ratio(
        "corpus scalars -> lazy page, index alone / driver's codecs, typed (bound)",
        CORPUS,
        lazy + "indexOnly",
        driverTyped,
        0);
    allocation(
        "corpus scalars -> lazy page, typed getters: bytes per row / driver's",
        CORPUS,
        lazy + "typedGetters",
        driverTyped,
        1.0 / 3);
    ratio(
        "vector page -> lazy page, views copied out / scalar byte-swap floor",
        VECTOR,
        lazy + "vectorRows",
        floor,
        0.8);
  }

  private void report() {
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "%-52s %-14s %12s %10s %12s %10s %10s%n",
        "benchmark",
        "shape",
        "ops/s",
        "+-",
        "ns/row",
        "B/row",
        "cpu us/op");
    for (Map.Entry<Key, Figure> e : figures.entrySet()) {
      int rows = RowsShape.valueOf(e.getKey().shape).rows();
      Figure f = e.getValue();
      String name =
          e.getKey().benchmark + (e.getKey().variant.isEmpty() ? "" : "/" + e.getKey().variant);
      System.out.printf(
          Locale.ROOT,
          "%-52s %-14s %12.1f %10.1f %12.1f %10.1f %10.1f%n",
          name,
          e.getKey().shape,
          f.opsPerSecond,
          f.error,
          1e9 / f.opsPerSecond / rows,
          f.bytesPerOp / rows,
          f.cpuNanos / 1e3);
    }
    String floor = "FloorBenchmark.byteSwap";
    String copy = "FloorBenchmark.copyBytes";
    String driverArrays = "DriverBaselineBenchmark.decodeAllFloatArrays";
    String driverAll = "DriverBaselineBenchmark.decodeAll";
    ratio(
        "vector page -> columnar (reused) / scalar byte-swap floor",
        VECTOR,
        "RowsParserBenchmark.parseColumnarReused",
        floor,
        1.0,
        true);
    ratio(
        "vector page -> columnar (reused) / driver float-array codec",
        VECTOR,
        "RowsParserBenchmark.parseColumnarReused",
        driverArrays,
        2.5);
    ratio(
        "vector page -> columnar (fresh arrays) / scalar floor",
        VECTOR,
        "RowsParserBenchmark.parseColumnar",
        floor,
        0.8);
    ratio(
        "vector page -> rows sink / scalar byte-swap floor",
        VECTOR,
        "RowsParserBenchmark.parseRows",
        floor,
        0.6);
    ratio(
        "vector page -> columnar (reused) / driver default (seed: 11-30x)",
        VECTOR,
        "RowsParserBenchmark.parseColumnarReused",
        driverAll,
        11);
    // Rows read back, against the driver two ways: its codecs called directly on the frame's
    // cells (its cheapest decode), and its public Row API (DefaultRow getters, what users call).
    String driverTyped = "DriverBaselineBenchmark.decodeAllTyped";
    String driverRows = "DriverBaselineBenchmark.rowsGetObject";
    String mixedTyped = "RowsParserBenchmark.parseRowsMixedGetters";
    String typed = "RowsParserBenchmark.parseRowsTypedGetters";
    String objects = "RowsParserBenchmark.parseRowsGetObject";
    String blackhole = "RowsParserBenchmark.parseToBlackhole";
    ratio(
        "mixed scalars -> rows sink, no read-back / driver decode-all (report)",
        MIXED,
        "RowsParserBenchmark.parseRows",
        driverAll,
        0);
    ratio(
        "mixed scalars -> rows, typed getters / driver's codecs, typed",
        MIXED,
        mixedTyped,
        "DriverBaselineBenchmark.decodeAllMixedGetters",
        3);
    ratio(
        "mixed scalars -> rows, typed getters / driver's Row getters",
        MIXED,
        mixedTyped,
        "DriverBaselineBenchmark.rowsMixedGetters",
        3);
    ratio("mixed scalars -> rows, getObject / driver's codecs", MIXED, objects, driverAll, 2.5);
    ratio(
        "mixed scalars -> rows, getObject / driver's Row.getObject",
        MIXED,
        objects,
        driverRows,
        2.5);
    ratio(
        "mixed scalars -> parse alone, nothing kept / driver's codecs, typed (bound)",
        MIXED,
        blackhole,
        "DriverBaselineBenchmark.decodeAllMixedGetters",
        0);
    allocation(
        "mixed scalars -> rows, typed getters: bytes per row / driver's",
        MIXED,
        mixedTyped,
        "DriverBaselineBenchmark.decodeAllMixedGetters",
        1.0 / 3);
    ratio(
        "corpus scalars -> rows, typed getters / driver's codecs, typed",
        CORPUS,
        typed,
        driverTyped,
        3);
    ratio("corpus scalars -> rows, getObject / driver's codecs", CORPUS, objects, driverAll, 2.5);
    ratio(
        "corpus scalars -> rows, getObject / driver's Row.getObject",
        CORPUS,
        objects,
        driverRows,
        2.5);
    ratio(
        "corpus scalars -> parse alone, nothing kept / driver's codecs, typed (bound)",
        CORPUS,
        blackhole,
        driverTyped,
        0);
    allocation(
        "corpus scalars -> rows, typed getters: bytes per row / driver's",
        CORPUS,
        typed,
        driverTyped,
        1.0 / 3);
    lazyRatios(floor, driverAll, driverTyped, driverRows);
    Figure primitives = get("RowsParserBenchmark.parseColumnarPrimitives", MIXED);
    if (primitives != null) {
      double perRow = primitives.bytesPerOp / RowsShape.valueOf(MIXED).rows();
      verdicts.add(
          String.format(
              Locale.ROOT,
              "%-62s %6.3f B/row  target < 1  %s",
              "mixed scalars -> columnar, primitive columns only",
              perRow,
              perRow < 1 ? "met" : "NOT MET"));
    }
    ratio(
        "vector page -> columnar, SIMD (reused) / byte copy floor",
        VECTOR,
        "SimdBenchmark.parseColumnarReused",
        copy,
        0.6);
    ratio(
        "vector page -> columnar, SIMD (reused) / driver default",
        VECTOR,
        "SimdBenchmark.parseColumnarReused",
        driverAll,
        25);
    ratio(
        "SIMD byte-swap floor / byte copy floor (reference)",
        VECTOR,
        "SimdBenchmark.simdFloor",
        copy,
        0);
    ratio(
        "pipeline v4 frames -> columnar / scalar floor",
        VECTOR,
        "PipelineBenchmark.pipeline/V4",
        floor,
        0.6);
    ratio(
        "pipeline v5 segments -> columnar / scalar floor",
        VECTOR,
        "PipelineBenchmark.pipeline/V5",
        floor,
        0.6);
    ratioToSum(
        "pipeline v5 segments -> columnar / (scalar floor + CRC32)",
        VECTOR,
        "PipelineBenchmark.pipeline/V5",
        floor,
        "PipelineBenchmark.v5Crc32Only",
        0.6);
    ratio(
        "CRC32 of the payloads: direct buffers / heap arrays (report)",
        VECTOR,
        "PipelineBenchmark.v5Crc32Only",
        "PipelineBenchmark.v5Crc32HeapArrays",
        0);
    ratio(
        "pipeline v4+LZ4 / LZ4 decompression alone (report)",
        VECTOR,
        "PipelineBenchmark.pipeline/V4_LZ4",
        "PipelineBenchmark.lz4DecompressOnly/V4_LZ4",
        0);
    ratio(
        "pipeline v5+LZ4 / scalar floor (report)",
        VECTOR,
        "PipelineBenchmark.pipeline/V5_LZ4",
        floor,
        0);
    ratio("copy floor / scalar byte-swap floor (reference)", VECTOR, copy, floor, 0);
    System.out.println();
    verdicts.forEach(System.out::println);
  }
}
