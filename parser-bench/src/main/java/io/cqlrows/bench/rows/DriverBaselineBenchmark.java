package io.cqlrows.bench.rows;

import com.datastax.oss.driver.api.core.ProtocolVersion;
import com.datastax.oss.driver.api.core.detach.AttachmentPoint;
import com.datastax.oss.driver.api.core.type.DataType;
import com.datastax.oss.driver.api.core.type.DataTypes;
import com.datastax.oss.driver.api.core.type.VectorType;
import com.datastax.oss.driver.api.core.type.codec.ExtraTypeCodecs;
import com.datastax.oss.driver.api.core.type.codec.TypeCodec;
import com.datastax.oss.driver.api.core.type.codec.registry.CodecRegistry;
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
 * DataTypeHelper.fromProtocolSpec}), as {@code row.getObject(i)} does. Codecs are resolved once
 * per page (the driver builds column definitions per page of a simple statement and looks the
 * codec up on every {@code get}; resolving once per page slightly favours it).
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
    @Param
    public RowsShape shape;

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
    page.input.decodeValues(bh, false);
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
    page.input.decodeValues(bh, true);
  }

  /** One page in the driver's buffers, and what the last decoding of it reported. */
  static final class Input {
    private static final PrimitiveCodec<ByteBuf> CODEC =
        new ByteBufPrimitiveCodec(UnpooledByteBufAllocator.DEFAULT);
    private static final int KIND_LENGTH = 4;

    final RowsShape.Page page;
    final ByteBuf body;
    final DefaultRows.SubCodec rowsCodec = new DefaultRows.SubCodec(ProtocolConstants.Version.V4);
    long rows;
    long values;
    long intSum;
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

    void count(DefaultRows rows) {
      decoded = true;
      this.rows = rows.getData().size();
    }

    void decodeValues(Blackhole bh, boolean floatArrays) {
      DefaultRows decoded = decodeFrame();
      List<ColumnSpec> specs = decoded.getMetadata().columnSpecs;
      int columns = specs.size();
      TypeCodec<?>[] codecs = new TypeCodec<?>[columns];
      for (int c = 0; c < columns; c++) {
        DataType type = DataTypeHelper.fromProtocolSpec(specs.get(c).type, AttachmentPoint.NONE);
        if (floatArrays && type instanceof VectorType
            && ((VectorType) type).getElementType().equals(DataTypes.FLOAT)) {
          codecs[c] = ExtraTypeCodecs.floatVectorToArray(((VectorType) type).getDimensions());
        } else {
          codecs[c] = CodecRegistry.DEFAULT.codecFor(type);
        }
      }
      long rowCount = 0;
      long valueCount = 0;
      long ints = 0;
      for (List<ByteBuffer> row : decoded.getData()) {
        for (int c = 0; c < columns; c++) {
          Object v = codecs[c].decode(row.get(c), ProtocolVersion.V4);
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

    void checkAndRelease() {
      try {
        if (!decoded) {
          return;
        }
        if (countsValues) {
          page.check("driver", rows, intSum, values);
        } else if (rows != page.rows) {
          throw new IllegalStateException("driver decodeFrame on " + page.shape + ": " + rows
              + " rows, expected " + page.rows);
        }
      } finally {
        body.release();
      }
    }
  }
}
