package io.cqlrows.bench.rows;

import io.cqlrows.core.CellKind;
import io.cqlrows.core.LazyPage;
import io.cqlrows.core.LazyPageSink;
import io.cqlrows.core.LazyRow;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.ResultReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Our parser ({@link ResultReader}, protocol v4) reading one ROWS page into a {@link LazyPageSink},
 * then the page's rows read back as users read them, and the page released: every column with its
 * typed getter, every column with {@code getObject}, two columns of all, or vectors copied through
 * their views into an array of the caller's. One operation = one page. The counterparts of {@link
 * RowsParserBenchmark}'s rows benchmarks and of {@link DriverBaselineBenchmark}, on the same bytes.
 *
 * <p>Before the first measurement each state reads its page once and checks it against the page's
 * own counts (rows, values, the sum of column 0).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = "-Dio.netty.leakDetection.level=disabled")
@State(Scope.Thread)
public class LazyRowsBenchmark {

  @Param({"MIXED_SCALARS", "CORPUS_SCALARS"})
  public RowsShape shape;

  private ByteBuf body;
  private final ResultReader reader = new ResultReader(4);
  private final LazyPageSink sink = new LazyPageSink();

  /** Per column, the getter a user reads it with. */
  private RowsParserBenchmark.Getter[] getters;

  /** The second column {@link #twoColumns} reads: the first text column (the first is an int). */
  private int textColumn;

  @Setup(Level.Trial)
  public void setUp() {
    RowsShape.Page page = shape.page();
    body = Unpooled.wrappedBuffer(page.bytes);
    try (LazyPage p = read(reader, sink, body)) {
      ResultColumns columns = p.columns();
      getters = new RowsParserBenchmark.Getter[columns.size()];
      textColumn = -1;
      for (int c = 0; c < columns.size(); c++) {
        getters[c] = RowsParserBenchmark.Getter.of(columns.get(c).type());
        if (textColumn < 0 && c > 0 && CellKind.of(columns.get(c).type()) == CellKind.TEXT) {
          textColumn = c;
        }
      }
      check(page, p);
    }
  }

  /** Throws unless the lazy page reports the page's rows, values and int checksum. */
  static void check(RowsShape.Page page, LazyPage p) {
    long intSum = 0;
    long values = 0;
    for (LazyRow row : p) {
      intSum += row.getInt(0);
      for (int c = 0; c < row.size(); c++) {
        values += row.getObject(c) != null ? 1 : 0;
      }
    }
    page.check("LazyRowsBenchmark", p.size(), intSum, values);
  }

  /** The page of {@code body} (borrowed), read by {@code reader}; the caller releases it. */
  static LazyPage read(ResultReader reader, LazyPageSink sink, ByteBuf body) {
    reader.read(body.duplicate(), sink);
    return sink.poll();
  }

  @TearDown(Level.Trial)
  public void release() {
    sink.close();
    body.release();
  }

  /** The page made, nothing read: the structural parse, the index and the release. */
  @Benchmark
  public int indexOnly() {
    try (LazyPage p = read(reader, sink, body)) {
      return p.size();
    }
  }

  /** Every cell with the typed getter of its column ({@code getInt}, {@code getString}, ...). */
  @Benchmark
  public long typedGetters(Blackhole bh) {
    RowsParserBenchmark.Getter[] g = getters;
    try (LazyPage p = read(reader, sink, body)) {
      for (LazyRow row : p) {
        for (int c = 0; c < g.length; c++) {
          g[c].consume(row, c, bh);
        }
      }
      return p.size();
    }
  }

  /** Every cell with {@code getObject}. */
  @Benchmark
  public long getObject(Blackhole bh) {
    int columns = getters.length;
    try (LazyPage p = read(reader, sink, body)) {
      for (LazyRow row : p) {
        for (int c = 0; c < columns; c++) {
          bh.consume(row.getObject(c));
        }
      }
      return p.size();
    }
  }

  /** Two columns of the page: the int id (column 0) and the first text column. */
  @Benchmark
  public long twoColumns(Blackhole bh) {
    int text = textColumn;
    long ints = 0;
    try (LazyPage p = read(reader, sink, body)) {
      for (LazyRow row : p) {
        ints += row.getInt(0);
        bh.consume(row.getString(text));
      }
    }
    return ints;
  }

  /** The {@code MIXED_SCALARS} page alone, for {@link #mixedGetters}. */
  @State(Scope.Thread)
  public static class MixedPage {
    @Param({"MIXED_SCALARS"})
    public RowsShape mixedShape;

    ByteBuf body;
    final ResultReader reader = new ResultReader(4);
    final LazyPageSink sink = new LazyPageSink();

    @Setup(Level.Trial)
    public void setUp() {
      RowsShape.Page page = mixedShape.page();
      body = Unpooled.wrappedBuffer(page.bytes);
      try (LazyPage p = read(reader, sink, body)) {
        check(page, p);
      }
    }

    @TearDown(Level.Trial)
    public void release() {
      sink.close();
      body.release();
    }
  }

  /**
   * The {@code MIXED_SCALARS} page, each row's ten values read by the getters of a user who knows
   * the schema, in straight-line code: the counterpart of {@link
   * RowsParserBenchmark#parseRowsMixedGetters} and {@link
   * DriverBaselineBenchmark#decodeAllMixedGetters}.
   */
  @Benchmark
  public long mixedGetters(MixedPage m, Blackhole bh) {
    long ints = 0;
    try (LazyPage p = read(m.reader, m.sink, m.body)) {
      for (LazyRow row : p) {
        ints += row.getInt(0);
        bh.consume(row.getLong(1));
        bh.consume(row.getString(2));
        bh.consume(row.getUuid(3));
        bh.consume(row.getInstant(4));
        bh.consume(row.getDouble(5));
        bh.consume(row.getBoolean(6));
        bh.consume(row.getBytes(7));
        bh.consume(row.getFloat(8));
        bh.consume(row.getLocalDate(9));
      }
    }
    return ints;
  }

  /** A float-vector page, for {@link #vectorRows}. */
  @State(Scope.Thread)
  public static class VectorPage {
    @Param({"VECTOR_768F", "VECTOR_1536F"})
    public RowsShape vectorShape;

    ByteBuf body;
    float[] into;
    final ResultReader reader = new ResultReader(4);
    final LazyPageSink sink = new LazyPageSink();

    @Setup(Level.Trial)
    public void setUp() {
      RowsShape.Page page = vectorShape.page();
      body = Unpooled.wrappedBuffer(page.bytes);
      try (LazyPage p = read(reader, sink, body)) {
        into = new float[p.row(0).floatVector(1).dimension()];
        check(page, p);
      }
    }

    @TearDown(Level.Trial)
    public void release() {
      sink.close();
      body.release();
    }
  }

  /**
   * A float-vector page: each row's id and its vector, copied through the vector's view into one
   * array of the caller's, reused for every row (nothing allocated per row but the views).
   */
  @Benchmark
  public float vectorRows(VectorPage v, Blackhole bh) {
    float[] into = v.into;
    float last = 0;
    try (LazyPage p = read(v.reader, v.sink, v.body)) {
      for (LazyRow row : p) {
        bh.consume(row.getInt(0));
        row.floatVector(1).copyTo(into, 0);
        last += into[into.length - 1];
      }
    }
    return last;
  }
}
