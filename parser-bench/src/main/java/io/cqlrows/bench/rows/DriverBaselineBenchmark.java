package io.cqlrows.bench.rows;

import com.datastax.oss.driver.api.core.ProtocolVersion;
import com.datastax.oss.driver.api.core.cql.ColumnDefinition;
import com.datastax.oss.driver.api.core.cql.ColumnDefinitions;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.detach.AttachmentPoint;
import com.datastax.oss.driver.api.core.type.DataType;
import com.datastax.oss.driver.api.core.type.DataTypes;
import com.datastax.oss.driver.api.core.type.VectorType;
import com.datastax.oss.driver.api.core.type.codec.ExtraTypeCodecs;
import com.datastax.oss.driver.api.core.type.codec.PrimitiveBooleanCodec;
import com.datastax.oss.driver.api.core.type.codec.PrimitiveByteCodec;
import com.datastax.oss.driver.api.core.type.codec.PrimitiveDoubleCodec;
import com.datastax.oss.driver.api.core.type.codec.PrimitiveFloatCodec;
import com.datastax.oss.driver.api.core.type.codec.PrimitiveIntCodec;
import com.datastax.oss.driver.api.core.type.codec.PrimitiveLongCodec;
import com.datastax.oss.driver.api.core.type.codec.PrimitiveShortCodec;
import com.datastax.oss.driver.api.core.type.codec.TypeCodec;
import com.datastax.oss.driver.api.core.type.codec.TypeCodecs;
import com.datastax.oss.driver.api.core.type.codec.registry.CodecRegistry;
import com.datastax.oss.driver.internal.core.cql.DefaultColumnDefinition;
import com.datastax.oss.driver.internal.core.cql.DefaultColumnDefinitions;
import com.datastax.oss.driver.internal.core.cql.DefaultRow;
import com.datastax.oss.driver.internal.core.protocol.ByteBufPrimitiveCodec;
import com.datastax.oss.driver.internal.core.type.DataTypeHelper;
import com.datastax.oss.driver.shaded.netty.buffer.ByteBuf;
import com.datastax.oss.driver.shaded.netty.buffer.Unpooled;
import com.datastax.oss.driver.shaded.netty.buffer.UnpooledByteBufAllocator;
import com.datastax.oss.protocol.internal.PrimitiveCodec;
import com.datastax.oss.protocol.internal.ProtocolConstants;
import com.datastax.oss.protocol.internal.response.result.ColumnSpec;
import com.datastax.oss.protocol.internal.response.result.DefaultRows;
import java.nio.ByteBuffer;
import java.util.ArrayList;
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
 * The baseline: the Apache Cassandra Java driver 4.19.2 decoding the same bytes as {@link
 * RowsParserBenchmark}, the way its connection does: the body (after the kind) through {@code
 * DefaultRows.SubCodec} with the driver's own {@code ByteBufPrimitiveCodec} over its shaded Netty
 * (metadata, then every cell copied into a {@code ByteBuffer}), then every cell of every row
 * through the {@link CodecRegistry#DEFAULT} codec of its column's type ({@code
 * DataTypeHelper.fromProtocolSpec}), as {@code row.getObject(i)} does. Codecs are resolved once per
 * page (the driver builds column definitions per page of a simple statement and looks the codec up
 * on every {@code get}; resolving once per page slightly favours it).
 *
 * <p>The class itself holds no parameter: {@code shape} lives in {@link Page} and {@code
 * vectorShape} in {@link FloatVectorPage}, so each benchmark runs only over its own shapes.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = "-Dio.netty.leakDetection.level=disabled")
@State(Scope.Thread)
public class DriverBaselineBenchmark {

  /** A page of any shape (the vector-only benchmarks use {@link FloatVectorPage}). */
  @State(Scope.Thread)
  public static class Page {
    @Param public RowsShape shape;

    Input input;

    @Setup(Level.Trial)
    public void setUp() {
      input = new Input(shape);
    }

    @TearDown(Level.Trial)
    public void check() {
      input.checkAndRelease();
    }
  }

  /** The frame decoding only: metadata and one {@code ByteBuffer} copy per cell, no values. */
  @Benchmark
  public DefaultRows decodeFrame(Page page) {
    DefaultRows rows = page.input.decodeFrame();
    page.input.count(rows);
    return rows;
  }

  /** From bytes to values: the frame, then every cell through the default codec. */
  @Benchmark
  public void decodeAll(Page page, Blackhole bh) {
    page.input.decodeValues(bh, false, false);
  }

  /**
   * As {@link #decodeAll}, reading each cell as a user's typed getter does: {@code getInt}, {@code
   * getLong}, {@code getDouble}, ... go through the primitive codec's {@code decodePrimitive} (no
   * boxing), the other types through {@code decode} as before.
   */
  @Benchmark
  public void decodeAllTyped(Page page, Blackhole bh) {
    page.input.decodeValues(bh, false, true);
  }

  /** The {@code MIXED_SCALARS} page alone, for {@link #decodeAllMixedGetters}. */
  @State(Scope.Thread)
  public static class MixedPage {
    @Param({"MIXED_SCALARS"})
    public RowsShape mixedShape;

    Input input;

    @Setup(Level.Trial)
    public void setUp() {
      input = new Input(mixedShape);
    }

    @TearDown(Level.Trial)
    public void check() {
      input.checkAndRelease();
    }
  }

  /**
   * The {@code MIXED_SCALARS} page: the frame, then each row's ten values read as the driver's
   * typed getters of a user who knows the schema do it, in straight-line code: {@code getInt},
   * {@code getLong}, {@code getDouble}, {@code getBoolean}, {@code getFloat} through the primitive
   * codecs' {@code decodePrimitive}, {@code getString}, {@code getUuid}, {@code getInstant}, {@code
   * getByteBuffer}, {@code getLocalDate} through their codecs' {@code decode}. The counterpart of
   * {@link RowsParserBenchmark#parseRowsMixedGetters}.
   */
  @Benchmark
  public void decodeAllMixedGetters(MixedPage page, Blackhole bh) {
    Input in = page.input;
    DefaultRows decoded = in.decodeFrame();
    ProtocolVersion v4 = ProtocolVersion.V4;
    long ints = 0;
    for (List<ByteBuffer> row : decoded.getData()) {
      int id = TypeCodecs.INT.decodePrimitive(row.get(0), v4);
      ints += id;
      bh.consume(TypeCodecs.BIGINT.decodePrimitive(row.get(1), v4));
      bh.consume(TypeCodecs.TEXT.decode(row.get(2), v4));
      bh.consume(TypeCodecs.UUID.decode(row.get(3), v4));
      bh.consume(TypeCodecs.TIMESTAMP.decode(row.get(4), v4));
      bh.consume(TypeCodecs.DOUBLE.decodePrimitive(row.get(5), v4));
      bh.consume(TypeCodecs.BOOLEAN.decodePrimitive(row.get(6), v4));
      bh.consume(TypeCodecs.BLOB.decode(row.get(7), v4));
      bh.consume(TypeCodecs.FLOAT.decodePrimitive(row.get(8), v4));
      bh.consume(TypeCodecs.DATE.decode(row.get(9), v4));
    }
    in.count(decoded);
    in.mixedIntSum = ints;
  }

  /**
   * The {@code MIXED_SCALARS} page as a driver user reads it: the frame, the page's column
   * definitions (built per page, as the driver does for a simple statement), a {@code DefaultRow}
   * per row, and its typed getters {@code getInt}, {@code getLong}, {@code getString}, {@code
   * getUuid}, {@code getInstant}, {@code getDouble}, {@code getBoolean}, {@code getByteBuffer},
   * {@code getFloat}, {@code getLocalDate}, which look the codec up in the registry on each call.
   * The counterpart of {@link RowsParserBenchmark#parseRowsMixedGetters} through the driver's
   * public API; {@link #decodeAllMixedGetters} is the same values by direct codec calls.
   */
  @Benchmark
  public void rowsMixedGetters(MixedPage page, Blackhole bh) {
    Input in = page.input;
    DefaultRows decoded = in.decodeFrame();
    ColumnDefinitions definitions = Input.definitions(decoded);
    long ints = 0;
    for (List<ByteBuffer> data : decoded.getData()) {
      Row row = new DefaultRow(definitions, data, Input.ATTACHMENT);
      ints += row.getInt(0);
      bh.consume(row.getLong(1));
      bh.consume(row.getString(2));
      bh.consume(row.getUuid(3));
      bh.consume(row.getInstant(4));
      bh.consume(row.getDouble(5));
      bh.consume(row.getBoolean(6));
      bh.consume(row.getByteBuffer(7));
      bh.consume(row.getFloat(8));
      bh.consume(row.getLocalDate(9));
    }
    in.count(decoded);
    in.mixedIntSum = ints;
  }

  /**
   * Any page as a driver user reads it with {@code getObject}: column definitions per page, a
   * {@code DefaultRow} per row, {@code row.getObject(i)} for every cell (a codec lookup each).
   */
  @Benchmark
  public void rowsGetObject(Page page, Blackhole bh) {
    Input in = page.input;
    DefaultRows decoded = in.decodeFrame();
    ColumnDefinitions definitions = Input.definitions(decoded);
    int columns = definitions.size();
    for (List<ByteBuffer> data : decoded.getData()) {
      Row row = new DefaultRow(definitions, data, Input.ATTACHMENT);
      for (int c = 0; c < columns; c++) {
        bh.consume(row.getObject(c));
      }
    }
    in.count(decoded);
  }

  /**
   * Two columns of any page, by the driver's codecs called directly: the frame (every cell copied
   * into a {@code ByteBuffer}), then per row column 0 through the int codec's {@code
   * decodePrimitive} and the first text column through the text codec. The counterpart of {@link
   * LazyRowsBenchmark#twoColumns}.
   */
  @Benchmark
  public long decodeTwoColumns(Page page, Blackhole bh) {
    Input in = page.input;
    DefaultRows decoded = in.decodeFrame();
    int text = Input.firstTextColumn(decoded);
    ProtocolVersion v4 = ProtocolVersion.V4;
    long ints = 0;
    for (List<ByteBuffer> row : decoded.getData()) {
      ints += TypeCodecs.INT.decodePrimitive(row.get(0), v4);
      bh.consume(TypeCodecs.TEXT.decode(row.get(text), v4));
    }
    in.count(decoded);
    return ints;
  }

  /**
   * Two columns of any page as a driver user reads them: column definitions per page, a {@code
   * DefaultRow} per row, {@code getInt(0)} and {@code getString} of the first text column.
   */
  @Benchmark
  public long rowsTwoColumns(Page page, Blackhole bh) {
    Input in = page.input;
    DefaultRows decoded = in.decodeFrame();
    ColumnDefinitions definitions = Input.definitions(decoded);
    int text = Input.firstTextColumn(decoded);
    long ints = 0;
    for (List<ByteBuffer> data : decoded.getData()) {
      Row row = new DefaultRow(definitions, data, Input.ATTACHMENT);
      ints += row.getInt(0);
      bh.consume(row.getString(text));
    }
    in.count(decoded);
    return ints;
  }

  /** Float-vector pages, decoded with {@code ExtraTypeCodecs.floatVectorToArray(dimension)}. */
  @State(Scope.Thread)
  public static class FloatVectorPage {
    @Param({"VECTOR_768F", "VECTOR_1536F"})
    public RowsShape vectorShape;

    Input input;

    @Setup(Level.Trial)
    public void setUp() {
      input = new Input(vectorShape);
    }

    @TearDown(Level.Trial)
    public void check() {
      input.checkAndRelease();
    }
  }

  /** From bytes to values, vectors as {@code float[]} through the driver's array codec. */
  @Benchmark
  public void decodeAllFloatArrays(FloatVectorPage page, Blackhole bh) {
    page.input.decodeValues(bh, true, false);
  }

  /** One page in the driver's buffers, and what the last decoding of it reported. */
  static final class Input {
    private static final PrimitiveCodec<ByteBuf> CODEC =
        new ByteBufPrimitiveCodec(UnpooledByteBufAllocator.DEFAULT);
    private static final int KIND_LENGTH = 4;
    private static final int OBJECT = 0;
    private static final int INT = 1;
    private static final int LONG = 2;
    private static final int DOUBLE = 3;
    private static final int FLOAT = 4;
    private static final int BOOLEAN = 5;
    private static final int SHORT = 6;
    private static final int BYTE = 7;

    /** What the driver's rows are attached to: protocol v4 and the default codec registry. */
    static final AttachmentPoint ATTACHMENT =
        new AttachmentPoint() {
          @Override
          public ProtocolVersion getProtocolVersion() {
            return ProtocolVersion.V4;
          }

          @Override
          public CodecRegistry getCodecRegistry() {
            return CodecRegistry.DEFAULT;
          }
        };

    final RowsShape.Page page;
    final ByteBuf body;
    final DefaultRows.SubCodec rowsCodec = new DefaultRows.SubCodec(ProtocolConstants.Version.V4);
    long rows;
    long values;
    long intSum;

    /** The id sum of the last {@link #decodeAllMixedGetters}, or -1. */
    long mixedIntSum = -1;

    boolean decoded;
    boolean countsValues;

    Input(RowsShape shape) {
      page = shape.page();
      body = Unpooled.wrappedBuffer(page.bytes);
    }

    DefaultRows decodeFrame() {
      ByteBuf in = body.duplicate();
      in.skipBytes(KIND_LENGTH); // the driver's Result codec reads the kind, then the sub-codec
      return (DefaultRows) rowsCodec.decode(in, CODEC);
    }

    /** The page's column definitions, as the driver's {@code Conversions} builds them. */
    static ColumnDefinitions definitions(DefaultRows rows) {
      List<ColumnDefinition> columns = new ArrayList<>();
      for (ColumnSpec spec : rows.getMetadata().columnSpecs) {
        columns.add(new DefaultColumnDefinition(spec, ATTACHMENT));
      }
      return DefaultColumnDefinitions.valueOf(columns);
    }

    /** The first column after column 0 of type text (varchar) or ascii. */
    static int firstTextColumn(DefaultRows rows) {
      List<ColumnSpec> specs = rows.getMetadata().columnSpecs;
      for (int c = 1; c < specs.size(); c++) {
        DataType t = DataTypeHelper.fromProtocolSpec(specs.get(c).type, AttachmentPoint.NONE);
        if (t.equals(DataTypes.TEXT) || t.equals(DataTypes.ASCII)) {
          return c;
        }
      }
      throw new IllegalStateException("no text column");
    }

    void count(DefaultRows rows) {
      decoded = true;
      this.rows = rows.getData().size();
    }

    void decodeValues(Blackhole bh, boolean floatArrays, boolean typed) {
      DefaultRows decoded = decodeFrame();
      List<ColumnSpec> specs = decoded.getMetadata().columnSpecs;
      int columns = specs.size();
      TypeCodec<?>[] codecs = new TypeCodec<?>[columns];
      int[] kinds = new int[columns];
      for (int c = 0; c < columns; c++) {
        DataType type = DataTypeHelper.fromProtocolSpec(specs.get(c).type, AttachmentPoint.NONE);
        if (floatArrays
            && type instanceof VectorType vector
            && vector.getElementType().equals(DataTypes.FLOAT)) {
          codecs[c] = ExtraTypeCodecs.floatVectorToArray(vector.getDimensions());
        } else {
          codecs[c] = CodecRegistry.DEFAULT.codecFor(type);
        }
        kinds[c] = typed ? primitiveKind(codecs[c]) : OBJECT;
      }
      long rowCount = 0;
      long valueCount = 0;
      long ints = 0;
      for (List<ByteBuffer> row : decoded.getData()) {
        for (int c = 0; c < columns; c++) {
          ByteBuffer cell = row.get(c);
          if (kinds[c] != OBJECT) {
            decodePrimitive(kinds[c], codecs[c], cell, bh);
            if (cell != null && cell.hasRemaining()) {
              valueCount++;
              if (c == 0) {
                ints += cell.getInt(cell.position());
              }
            }
            continue;
          }
          Object v = codecs[c].decode(cell, ProtocolVersion.V4);
          if (v != null) {
            valueCount++;
            if (c == 0) {
              ints += (Integer) v;
            }
          }
          bh.consume(v);
        }
        rowCount++;
      }
      this.decoded = true;
      this.countsValues = true;
      this.rows = rowCount;
      this.values = valueCount;
      this.intSum = ints;
    }

    /**
     * What the driver's typed getter of a column calls: {@code getInt} on an int column finds a
     * {@code PrimitiveIntCodec} and calls its {@code decodePrimitive}; a column whose codec is not
     * primitive gets {@link #OBJECT} ({@code getString}, {@code getInstant}, ... call {@code
     * decode}).
     */
    private static int primitiveKind(TypeCodec<?> codec) {
      if (codec instanceof PrimitiveIntCodec) {
        return INT;
      } else if (codec instanceof PrimitiveLongCodec) {
        return LONG;
      } else if (codec instanceof PrimitiveDoubleCodec) {
        return DOUBLE;
      } else if (codec instanceof PrimitiveFloatCodec) {
        return FLOAT;
      } else if (codec instanceof PrimitiveBooleanCodec) {
        return BOOLEAN;
      } else if (codec instanceof PrimitiveShortCodec) {
        return SHORT;
      } else if (codec instanceof PrimitiveByteCodec) {
        return BYTE;
      }
      return OBJECT;
    }

    /** Consumes a cell of a column of a primitive kind through {@code decodePrimitive}. */
    private static void decodePrimitive(
        int kind, TypeCodec<?> codec, ByteBuffer cell, Blackhole bh) {
      ProtocolVersion v4 = ProtocolVersion.V4;
      switch (kind) {
        case INT -> bh.consume(((PrimitiveIntCodec) codec).decodePrimitive(cell, v4));
        case LONG -> bh.consume(((PrimitiveLongCodec) codec).decodePrimitive(cell, v4));
        case DOUBLE -> bh.consume(((PrimitiveDoubleCodec) codec).decodePrimitive(cell, v4));
        case FLOAT -> bh.consume(((PrimitiveFloatCodec) codec).decodePrimitive(cell, v4));
        case BOOLEAN -> bh.consume(((PrimitiveBooleanCodec) codec).decodePrimitive(cell, v4));
        case SHORT -> bh.consume(((PrimitiveShortCodec) codec).decodePrimitive(cell, v4));
        case BYTE -> bh.consume(((PrimitiveByteCodec) codec).decodePrimitive(cell, v4));
        default -> throw new IllegalArgumentException("kind " + kind);
      }
    }

    void checkAndRelease() {
      try {
        if (!decoded) {
          return;
        }
        if (mixedIntSum >= 0 && (rows != page.rows || mixedIntSum != page.intSum)) {
          throw new IllegalStateException(
              "driver decodeAllMixedGetters: rows/intSum "
                  + rows
                  + "/"
                  + mixedIntSum
                  + ", expected "
                  + page.rows
                  + "/"
                  + page.intSum);
        }
        if (countsValues) {
          page.check("driver", rows, intSum, values);
        } else if (rows != page.rows) {
          throw new IllegalStateException(
              "driver decodeFrame on " + page.shape + ": " + rows + " rows, expected " + page.rows);
        }
      } finally {
        body.release();
      }
    }
  }
}
