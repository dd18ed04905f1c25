package io.cqlrows.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.cqlrows.core.CellKind;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.TypeSamples;
import io.cqlrows.core.TypeSamples.Sample;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.core.type.VectorType;
import io.netty.buffer.ByteBuf;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.extension.UuidType;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link ArrowMapping} and {@link ArrowSink} follow {@link CellKind}: every type of a kind gets the
 * kind's Arrow type, and every sample value arrives as {@code RowsCollector} decodes it.
 */
class ArrowCellKindTest {
  static List<Sample> samples() {
    return TypeSamples.all();
  }

  @ParameterizedTest
  @MethodSource("samples")
  void mapsEveryTypeOfAKindToTheKindsArrowType(Sample s) {
    Field f = ArrowMapping.defaults().field("v", s.type(), true);
    ArrowType expected =
        switch (s.kind()) {
          case BOOLEAN -> ArrowType.Bool.INSTANCE;
          case TINYINT -> new ArrowType.Int(8, true);
          case SMALLINT -> new ArrowType.Int(16, true);
          case INT, INT_VECTOR -> new ArrowType.Int(32, true);
          case BIGINT, LONG_VECTOR -> new ArrowType.Int(64, true);
          case FLOAT, FLOAT_VECTOR -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
          case DOUBLE, DOUBLE_VECTOR -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
          case TIMESTAMP -> new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC");
          case DATE -> new ArrowType.Date(DateUnit.DAY);
          case TIME -> new ArrowType.Time(TimeUnit.NANOSECOND, 64);
          case UUID -> UuidType.INSTANCE;
          case TEXT -> ArrowType.Utf8.INSTANCE;
          case BLOB -> ArrowType.Binary.INSTANCE;
          case OBJECT -> null; // mapped one by one: ArrowSinkTest, ArrowSinkCorpusTest
        };
    switch (s.kind()) {
      case FLOAT_VECTOR, DOUBLE_VECTOR, INT_VECTOR, LONG_VECTOR -> {
        int dimension = ((VectorType) s.type()).dimension();
        assertEquals(new ArrowType.FixedSizeList(dimension), f.getType(), s::toString);
        assertEquals(expected, f.getChildren().get(0).getType(), s::toString);
      }
      case OBJECT -> {}
      default -> assertEquals(expected, f.getType(), s::toString);
    }
  }

  @ParameterizedTest
  @MethodSource("samples")
  void storesEverySampleAsRowsCollectorDecodesIt(Sample s) {
    RowsCollector rows = new RowsCollector();
    read(s.body(), rows);
    Object expected = rows.rows().get(0).getObject(0);
    try (BufferAllocator allocator = new RootAllocator();
        ArrowSink sink = new ArrowSink(allocator)) {
      read(s.body(), sink);
      FieldVector v = sink.root().getVector(0);
      ArrowValues.assertSlot(v, 0, s.type(), expected, sink.mapping(), s.toString());
    }
  }

  private static void read(ByteBuf body, RowSink sink) {
    try {
      new ResultReader(4).read(body, sink);
    } finally {
      body.release();
    }
  }
}
