package io.cqlrows.bench.rows;

import io.cqlrows.core.LazyRow;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.sink.ColumnarSink;
import io.cqlrows.core.sink.Row;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.VectorType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
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
 * Our parser ({@link ResultReader}, protocol v4) reading one ROWS page into each of its sinks:
 * {@link ColumnarSink} (primitive arrays, bulk vector copies), {@link RowsCollector} (boxed {@link
 * Row} objects) and a {@link BlackholeRowSink} (every typed event, nothing kept). One operation =
 * one page; divide by {@link RowsShape#rows()} for per-row figures.
 *
 * <p>Compared in the same run with {@link DriverBaselineBenchmark} and {@link FloorBenchmark},
 * which read the same bytes.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = "-Dio.netty.leakDetection.level=disabled")
@State(Scope.Thread)
public class RowsParserBenchmark {

  @Param public RowsShape shape;

  private RowsShape.Page page;
  private ByteBuf body;
  private ResultReader reader;
  private ColumnarSink columnar;
  private ColumnarSink columnarReused;
  private ColumnarSink columnarPrimitives;

  /** Non-NULL cells of the columns {@link #columnarPrimitives} selects. */
  private long primitiveValues;

  private RowsCollector collector;

  /** Per column, the getter a user reads it with. */
  private Getter[] getters;

  private BlackholeRowSink blackholeSink;
  private long invocations;

  @Setup(Level.Trial)
  public void setUp(Blackhole bh) {
    page = shape.page();
    body = Unpooled.wrappedBuffer(page.bytes);
    reader = new ResultReader(4);
    columnar = new ColumnarSink();
    columnarReused = new ColumnarSink().reuseArrays(true);
    collector = new RowsCollector();
    blackholeSink = new BlackholeRowSink(bh);
    selectPrimitiveColumns();
  }

  /** Selects the columns that {@link ColumnarSink} stores in primitive arrays. */
  private void selectPrimitiveColumns() {
    RowsCollector all = new RowsCollector();
    new ResultReader(4).read(body.duplicate(), all);
    List<String> names = new ArrayList<>();
    BitSet selected = new BitSet();
    ResultColumns columns = all.metadata().columns();
    getters = new Getter[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      getters[c] = Getter.of(columns.get(c).type());
    }
    for (int c = 0; c < columns.size(); c++) {
      if (isPrimitive(columns.get(c).type())) {
        names.add(columns.get(c).name());
        selected.set(c);
      }
    }
    for (Row row : all.rows()) {
      for (int c = selected.nextSetBit(0); c >= 0; c = selected.nextSetBit(c + 1)) {
        primitiveValues += row.getObject(c) != null ? 1 : 0;
      }
    }
    columnarPrimitives =
        new ColumnarSink().reuseArrays(true).selectColumnsByName(names.toArray(new String[0]));
  }

  private static boolean isPrimitive(CqlType t) {
    if (t instanceof VectorType v) {
      CqlType e = v.element();
      return e == NativeType.FLOAT
          || e == NativeType.DOUBLE
          || e == NativeType.INT
          || e == NativeType.BIGINT;
    }
    return t instanceof NativeType n
        && n != NativeType.TEXT
        && n != NativeType.ASCII
        && n != NativeType.BLOB
        && n != NativeType.VARINT
        && n != NativeType.DECIMAL
        && n != NativeType.INET
        && n != NativeType.DURATION;
  }

  /**
   * As {@link #parseColumnarReused}, collecting only the columns stored in primitive arrays (the
   * others are skipped undecoded): the allocation-free path, under 1 B per row.
   */
  @Benchmark
  public ColumnarSink parseColumnarPrimitives() {
    invocations++;
    reader.read(body.duplicate(), columnarPrimitives);
    return columnarPrimitives;
  }

  /** As {@link #parseColumnar}, with arrays reused across pages (no allocation per page). */
  @Benchmark
  public ColumnarSink parseColumnarReused() {
    invocations++;
    reader.read(body.duplicate(), columnarReused);
    return columnarReused;
  }

  /** Our parser into {@link ColumnarSink}: the fast path (vectors as one float[] per column). */
  @Benchmark
  public ColumnarSink parseColumnar() {
    invocations++;
    reader.read(body.duplicate(), columnar);
    return columnar;
  }

  /** Our parser into {@link RowsCollector}: one boxed {@link Row} per row. */
  @Benchmark
  public RowsCollector parseRows() {
    invocations++;
    collector.clear();
    reader.read(body.duplicate(), collector);
    return collector;
  }

  /**
   * As {@link #parseRows}, then every value of every row read back with the typed getter of its
   * column ({@code getInt}, {@code getString}, {@code getInstant}, ...): how users read rows.
   */
  @Benchmark
  public long parseRowsTypedGetters(Blackhole bh) {
    invocations++;
    collector.clear();
    reader.read(body.duplicate(), collector);
    Getter[] g = getters;
    for (Row row : collector.rows()) {
      for (int c = 0; c < g.length; c++) {
        g[c].consume(row, c, bh);
      }
    }
    return collector.rows().size();
  }

  /** The {@code MIXED_SCALARS} page alone, for {@link #parseRowsMixedGetters}. */
  @State(Scope.Thread)
  public static class MixedPage {
    @Param({"MIXED_SCALARS"})
    public RowsShape mixedShape;

    RowsShape.Page page;
    ByteBuf body;
    final ResultReader reader = new ResultReader(4);
    final RowsCollector collector = new RowsCollector();
    long intSum = -1;

    @Setup(Level.Trial)
    public void setUp() {
      page = mixedShape.page();
      body = Unpooled.wrappedBuffer(page.bytes);
    }

    @TearDown(Level.Trial)
    public void check() {
      try {
        if (intSum >= 0) {
          long values = 0;
          for (Row row : collector.rows()) {
            for (int c = 0; c < row.size(); c++) {
              values += row.isNull(c) ? 0 : 1;
            }
          }
          page.check("parseRowsMixedGetters", collector.rows().size(), intSum, values);
        }
      } finally {
        body.release();
      }
    }
  }

  /**
   * The {@code MIXED_SCALARS} page into {@link RowsCollector}, then each row's ten values read by
   * the getters of a user who knows the schema, in straight-line code. The counterpart of {@link
   * DriverBaselineBenchmark#decodeAllMixedGetters}.
   */
  @Benchmark
  public long parseRowsMixedGetters(MixedPage m, Blackhole bh) {
    m.collector.clear();
    m.reader.read(m.body.duplicate(), m.collector);
    long ints = 0;
    for (Row row : m.collector.rows()) {
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
    m.intSum = ints;
    return ints;
  }

  /** As {@link #parseRows}, then every value of every row read back with {@code getObject}. */
  @Benchmark
  public long parseRowsGetObject(Blackhole bh) {
    invocations++;
    collector.clear();
    reader.read(body.duplicate(), collector);
    int columns = getters.length;
    for (Row row : collector.rows()) {
      for (int c = 0; c < columns; c++) {
        bh.consume(row.getObject(c));
      }
    }
    return collector.rows().size();
  }

  /** The typed getter of a column's type; {@code getObject} for the types without one here. */
  enum Getter {
    BOOLEAN {
      @Override
      void consume(Row row, int c, Blackhole bh) {
        bh.consume(row.getBoolean(c));
      }

      @Override
      void consume(LazyRow row, int c, Blackhole bh) {
        bh.consume(row.getBoolean(c));
      }
    },
    BYTE {
      @Override
      void consume(Row row, int c, Blackhole bh) {
        bh.consume(row.getByte(c));
      }

      @Override
      void consume(LazyRow row, int c, Blackhole bh) {
        bh.consume(row.getByte(c));
      }
    },
    SHORT {
      @Override
      void consume(Row row, int c, Blackhole bh) {
        bh.consume(row.getShort(c));
      }

      @Override
      void consume(LazyRow row, int c, Blackhole bh) {
        bh.consume(row.getShort(c));
      }
    },
    INT {
      @Override
      void consume(Row row, int c, Blackhole bh) {
        bh.consume(row.getInt(c));
      }

      @Override
      void consume(LazyRow row, int c, Blackhole bh) {
        bh.consume(row.getInt(c));
      }
    },
    LONG {
      @Override
      void consume(Row row, int c, Blackhole bh) {
        bh.consume(row.getLong(c));
      }

      @Override
      void consume(LazyRow row, int c, Blackhole bh) {
        bh.consume(row.getLong(c));
      }
    },
    FLOAT {
      @Override
      void consume(Row row, int c, Blackhole bh) {
        bh.consume(row.getFloat(c));
      }

      @Override
      void consume(LazyRow row, int c, Blackhole bh) {
        bh.consume(row.getFloat(c));
      }
    },
    DOUBLE {
      @Override
      void consume(Row row, int c, Blackhole bh) {
        bh.consume(row.getDouble(c));
      }

      @Override
      void consume(LazyRow row, int c, Blackhole bh) {
        bh.consume(row.getDouble(c));
      }
    },
    INSTANT {
      @Override
      void consume(Row row, int c, Blackhole bh) {
        bh.consume(row.getInstant(c));
      }

      @Override
      void consume(LazyRow row, int c, Blackhole bh) {
        bh.consume(row.getInstant(c));
      }
    },
    LOCAL_DATE {
      @Override
      void consume(Row row, int c, Blackhole bh) {
        bh.consume(row.getLocalDate(c));
      }

      @Override
      void consume(LazyRow row, int c, Blackhole bh) {
        bh.consume(row.getLocalDate(c));
      }
    },
    LOCAL_TIME {
      @Override
      void consume(Row row, int c, Blackhole bh) {
        bh.consume(row.getLocalTime(c));
      }

      @Override
      void consume(LazyRow row, int c, Blackhole bh) {
        bh.consume(row.getLocalTime(c));
      }
    },
    UUID {
      @Override
      void consume(Row row, int c, Blackhole bh) {
        bh.consume(row.getUuid(c));
      }

      @Override
      void consume(LazyRow row, int c, Blackhole bh) {
        bh.consume(row.getUuid(c));
      }
    },
    STRING {
      @Override
      void consume(Row row, int c, Blackhole bh) {
        bh.consume(row.getString(c));
      }

      @Override
      void consume(LazyRow row, int c, Blackhole bh) {
        bh.consume(row.getString(c));
      }
    },
    BYTES {
      @Override
      void consume(Row row, int c, Blackhole bh) {
        bh.consume(row.getBytes(c));
      }

      @Override
      void consume(LazyRow row, int c, Blackhole bh) {
        bh.consume(row.getBytes(c));
      }
    },
    OBJECT {
      @Override
      void consume(Row row, int c, Blackhole bh) {
        bh.consume(row.getObject(c));
      }

      @Override
      void consume(LazyRow row, int c, Blackhole bh) {
        bh.consume(row.getObject(c));
      }
    };

    abstract void consume(Row row, int c, Blackhole bh);

    abstract void consume(LazyRow row, int c, Blackhole bh);

    static Getter of(CqlType t) {
      if (!(t instanceof NativeType n)) {
        return OBJECT;
      }
      return switch (n) {
        case BOOLEAN -> BOOLEAN;
        case TINYINT -> BYTE;
        case SMALLINT -> SHORT;
        case INT -> INT;
        case BIGINT, COUNTER -> LONG;
        case FLOAT -> FLOAT;
        case DOUBLE -> DOUBLE;
        case TIMESTAMP -> INSTANT;
        case DATE -> LOCAL_DATE;
        case TIME -> LOCAL_TIME;
        case UUID, TIMEUUID -> UUID;
        case TEXT, ASCII -> STRING;
        case BLOB -> BYTES;
        default -> OBJECT;
      };
    }
  }

  /** Our parser into a sink that consumes every typed event and keeps nothing. */
  @Benchmark
  public long parseToBlackhole() {
    invocations++;
    reader.read(body.duplicate(), blackholeSink);
    return blackholeSink.rows;
  }

  /** Checks what the last invocation left in a columnar sink (nothing if it was unused). */
  static void checkColumnar(RowsShape.Page page, String benchmark, ColumnarSink sink) {
    if (sink.columnCount() != 0) {
      page.checkColumnar(benchmark, sink);
    }
  }

  private void checkPrimitives() {
    ColumnarSink sink = columnarPrimitives;
    if (sink.columnCount() == 0) {
      return;
    }
    long values = 0;
    for (int c = 0; c < sink.columnCount(); c++) {
      if (sink.isSelected(c)) {
        values += sink.rowCount() - sink.column(c).nulls().cardinality();
      }
    }
    long intSum = 0;
    for (int r = 0; r < sink.rowCount(); r++) {
      intSum += sink.column(0).ints()[r];
    }
    if (sink.rowCount() != page.rows || values != primitiveValues) {
      throw new IllegalStateException(
          "parseColumnarPrimitives on "
              + shape
              + ": rows/values "
              + sink.rowCount()
              + "/"
              + values
              + ", expected "
              + page.rows
              + "/"
              + primitiveValues);
    }
    page.check("parseColumnarPrimitives", sink.rowCount(), intSum, page.values);
  }

  @TearDown(Level.Trial)
  public void check() {
    try {
      if (invocations == 0) {
        return;
      }
      checkColumnar(page, "parseColumnar", columnar);
      checkColumnar(page, "parseColumnarReused", columnarReused);
      checkPrimitives();
      if (!collector.rows().isEmpty()) {
        long intSum = 0;
        long values = 0;
        for (Row row : collector.rows()) {
          for (int c = 0; c < row.size(); c++) {
            Object v = row.getObject(c);
            if (v != null) {
              values++;
              if (c == 0) {
                intSum += (Integer) v;
              }
            }
          }
        }
        page.check("parseRows", collector.rows().size(), intSum, values);
      }
      if (blackholeSink.rows > 0) {
        page.check(
            "parseToBlackhole", blackholeSink.rows, blackholeSink.intSum, blackholeSink.values);
      }
    } finally {
      body.release();
    }
  }
}
