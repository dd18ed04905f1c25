package io.cqlrows.core;

import static java.util.Map.entry;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.TypeSamples.Sample;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link CellKind#of} has an entry for every native type, and the parser delivers every cell by the
 * event its kind names, inline in the row loop as by the column's deserializer.
 */
class CellKindTest {
  /** The event each kind names, as {@link RecordingSink} spells it. */
  private static final Map<CellKind, String> EVENTS =
      Map.ofEntries(
          entry(CellKind.BOOLEAN, "boolean"),
          entry(CellKind.TINYINT, "tinyint"),
          entry(CellKind.SMALLINT, "smallint"),
          entry(CellKind.INT, "int"),
          entry(CellKind.BIGINT, "bigint"),
          entry(CellKind.FLOAT, "float"),
          entry(CellKind.DOUBLE, "double"),
          entry(CellKind.TIMESTAMP, "timestamp"),
          entry(CellKind.DATE, "date"),
          entry(CellKind.TIME, "time"),
          entry(CellKind.UUID, "uuid"),
          entry(CellKind.TEXT, "string"),
          entry(CellKind.BLOB, "blob"),
          entry(CellKind.FLOAT_VECTOR, "floatvector"),
          entry(CellKind.DOUBLE_VECTOR, "doublevector"),
          entry(CellKind.INT_VECTOR, "intvector"),
          entry(CellKind.LONG_VECTOR, "longvector"),
          entry(CellKind.OBJECT, "object"));

  static List<Sample> samples() {
    return TypeSamples.all();
  }

  @Test
  void everyNativeTypeHasAKindAndASample() {
    for (NativeType n : NativeType.values()) {
      assertNotNull(CellKind.of(n), n::toString);
    }
    assertEquals(List.of(), TypeSamples.nativeTypesWithoutSample());
  }

  @Test
  void theSamplesCoverEveryKind() {
    Set<CellKind> covered = EnumSet.noneOf(CellKind.class);
    for (Sample s : samples()) {
      covered.add(s.kind());
    }
    assertEquals(EnumSet.allOf(CellKind.class), covered);
    assertEquals(EnumSet.allOf(CellKind.class), EVENTS.keySet());
  }

  @Test
  void rejectsNull() {
    assertThrows(NullPointerException.class, () -> CellKind.of(null));
  }

  @ParameterizedTest
  @MethodSource("samples")
  void theParserDeliversACellByTheEventOfItsKind(Sample s) {
    String event = Decoding.cellEvent(s.body());
    String expected = "0:" + EVENTS.get(s.kind()) + " ";
    assertTrue(event.startsWith(expected), () -> s + ": " + event + ", expected " + expected);
  }

  /** The row loop decodes some kinds itself ({@link InlineCells}): it must agree with the call. */
  @ParameterizedTest
  @MethodSource("samples")
  void theRowLoopDeliversACellAsTheColumnsDeserializerDoes(Sample s) {
    ByteBuf cell = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(s.cell().replace(" ", "")));
    RecordingSink sink = new RecordingSink();
    try {
      DeserializerFactory.forType(s.type(), ParseLimits.defaults())
          .deliver(cell, 0, cell.readableBytes(), sink, 0);
    } finally {
      cell.release();
    }
    assertEquals(sink.events(), List.of(Decoding.cellEvent(s.body())), s::toString);
  }

  @ParameterizedTest
  @MethodSource("samples")
  void onlyTextAndBlobCellsOfLengthZeroAreValues(Sample s) {
    String expected =
        switch (s.kind()) {
          case TEXT -> "0:string ";
          case BLOB -> "0:blob ";
          default -> "0:empty";
        };
    assertEquals(expected, Decoding.cellEvent(s.emptyBody()), s::toString);
  }
}
