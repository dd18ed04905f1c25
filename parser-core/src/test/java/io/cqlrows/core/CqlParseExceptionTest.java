package io.cqlrows.core;

import static io.cqlrows.core.Decoding.assertError;
import static io.cqlrows.core.RowsBodies.list;
import static io.cqlrows.core.RowsBodies.opt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every {@link Reason} is produced by some input; the message format is pinned once. */
class CqlParseExceptionTest {
  /** Offset of the first col_spec's [option] in a one-column body ("ks", "t", column "v"). */
  private static final int OPTION = 4 + 4 + 4 + 4 + 3 + 3;

  /** An input producing each reason, with the fields it must carry. */
  @ParameterizedTest
  @EnumSource(Reason.class)
  void everyReasonIsProducedByMalformedInput(Reason reason) {
    ResultReader reader = new ResultReader(4);
    ByteBuf body;
    String field;
    int offset;
    int row = -1;
    int column = -1;
    switch (reason) {
      case TRUNCATED:
        body = CqlBytes.create().hex("000000").toByteBuf();
        field = "kind";
        offset = 0;
        break;
      case INVALID_LENGTH:
        body = RowsBodies.rows().column("v", 0x0009).rowCount(1).raw("fffffffd").build();
        field = "cell length";
        offset = OPTION + 2 + 4;
        row = 0;
        column = 0;
        break;
      case LENGTH_MISMATCH:
        body = RowsBodies.single(0x0009, "000001");
        field = "value";
        offset = OPTION + 2 + 4 + 4;
        row = 0;
        column = 0;
        break;
      case TRAILING_BYTES:
        body = RowsBodies.singleOption(list(opt(0x0009)), "00000000 00");
        field = "value";
        offset = OPTION + 4 + 4 + 4 + 4;
        row = 0;
        column = 0;
        break;
      case INVALID_COUNT:
        body = RowsBodies.rows().column("v", 0x0009).rowCount(-5).build();
        field = "rows_count";
        offset = OPTION + 2;
        break;
      case UNKNOWN_TYPE_ID:
        body = RowsBodies.single(0x0040, "");
        field = "option id";
        offset = OPTION;
        column = 0;
        break;
      case INVALID_TYPE_NAME:
        body =
            RowsBodies.single(
                RowsBodies.MARSHAL + "VectorType(" + RowsBodies.MARSHAL + "FloatType , 3", "");
        field = "custom type name";
        offset = OPTION + 2;
        column = 0;
        break;
      case TYPE_TOO_DEEP:
        body = RowsBodies.singleOption("0020".repeat(65) + opt(0x0009), "");
        field = "option";
        offset = OPTION + 2 * 64;
        column = 0;
        break;
      case LIMIT_EXCEEDED:
        reader = new ResultReader(4, ParseLimits.builder().maxColumns(1).build());
        body = RowsBodies.rows().column("a", 0x0009).column("b", 0x0009).build();
        field = "columns_count";
        offset = 8;
        break;
      case INVALID_VALUE:
        body = RowsBodies.single(0x0012, "8000000000000000");
        field = "value";
        offset = OPTION + 2 + 4 + 4;
        row = 0;
        column = 0;
        break;
      case UNKNOWN_RESULT_KIND:
        body = CqlBytes.create().int32(0x0042).toByteBuf();
        field = "kind";
        offset = 0;
        break;
      case METADATA_MISMATCH:
        body = RowsBodies.rows().noMetadata(1).row("00000001").build();
        field = "columns_count";
        offset = 8;
        break;
      default:
        throw new AssertionError("no test input for " + reason);
    }
    CqlParseException e = Decoding.error(reader, body, null);
    assertError(e, reason, field, offset, row, column);
  }

  @Test
  void pinsMessageFormat() {
    // one int column 'v', one row whose 4-byte cell has only 2 bytes
    ByteBuf body = RowsBodies.rows().column("v", 0x0009).rowCount(1).raw("00000004 0007").build();
    CqlParseException e = Decoding.error(body);
    assertEquals(
        "truncated cell at offset 32 (row 0, column 0 'v' int): need 4 bytes, have 2"
            + " [00 00 00 01 00 00 00 04>00 07]",
        e.getMessage());
    assertEquals("v", e.columnName());
    assertSame(NativeType.INT, e.type());
    assertEquals("need 4 bytes, have 2", e.detail());
    assertEquals("00 00 00 01 00 00 00 04>00 07", e.hexSnippet());
  }

  @Test
  void shiftsOffsetForBodiesParsedInParts() {
    CqlParseException e = Decoding.error(RowsBodies.single(0x0009, "000001"));
    CqlParseException shifted = e.shifted(100);
    assertEquals(e.offset() + 100, shifted.offset());
    assertEquals(e.reason(), shifted.reason());
    assertEquals(e.row(), shifted.row());
    assertEquals(e.column(), shifted.column());
    CqlParseException unknown = CqlParseException.at(Reason.TRUNCATED, "cell", -1, null, "");
    assertEquals(-1, unknown.offset());
    assertSame(unknown, unknown.shifted(100));
  }

  @Test
  void theReasonIsTypedAtBothLevels() {
    CqlParseException e = Decoding.error(RowsBodies.single(0x0009, "000001"));
    Reason own = e.reason(); // the override returns the parser's enum
    CqlException.Reason base = ((CqlException) e).reason();
    assertSame(Reason.LENGTH_MISMATCH, own);
    assertSame(own, base, "the same constant through the base class");
    assertEquals("LENGTH_MISMATCH", base.name());
  }
}
