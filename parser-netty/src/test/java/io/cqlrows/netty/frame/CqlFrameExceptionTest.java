package io.cqlrows.netty.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.CqlException;
import io.cqlrows.core.CqlParseException;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** The fields a frame error carries, and the message derived from them. */
class CqlFrameExceptionTest {
  @Test
  void aConnectionErrorAtAFrameHeader() {
    CqlFrameException e =
        new CqlFrameException(
            Reason.BAD_VERSION,
            true,
            -1,
            1024,
            "frame header",
            "version byte: 0x47 (expected: protocol version 3-6)",
            null);
    assertEquals(Reason.BAD_VERSION, e.reason());
    assertTrue(e.connectionLevel());
    assertEquals(-1, e.streamId());
    assertEquals(1024, e.offset());
    assertEquals("frame header", e.structure());
    assertNull(e.getCause());
    assertNull(e.parseError());
    assertInstanceOf(CqlException.class, e, "one hierarchy with the parser's errors");
    assertEquals(
        "version byte: 0x47 (expected: protocol version 3-6) (frame header at offset 1024)",
        e.getMessage());
  }

  @Test
  void aConnectionErrorKeepsItsCause() {
    IllegalStateException cause = new IllegalStateException("corrupt block");
    CqlFrameException e =
        new CqlFrameException(
            Reason.CORRUPT_COMPRESSION,
            true,
            -1,
            77,
            "segment",
            "LZ4 payload: corrupt block",
            cause);
    assertSame(cause, e.getCause());
    assertNull(e.parseError(), "the cause is no parser error");
    assertEquals("segment", e.structure());
    assertEquals("LZ4 payload: corrupt block (segment at offset 77)", e.getMessage());
  }

  @Test
  void aFrameErrorNamesItsStream() {
    CqlFrameException e =
        new CqlFrameException(
            Reason.BAD_PRELUDE,
            false,
            7,
            300,
            null,
            "malformed frame prelude: warnings run past the body",
            null);
    assertFalse(e.connectionLevel());
    assertEquals(7, e.streamId());
    assertNull(e.structure());
    assertEquals(
        "stream 7: malformed frame prelude: warnings run past the body (connection offset 300)",
        e.getMessage());
  }

  @Test
  void aConnectionErrorMayNameTheStreamOfItsHeader() {
    CqlFrameException e =
        new CqlFrameException(
            Reason.FRAME_TOO_LARGE,
            true,
            7,
            1024,
            "frame header",
            "body length: 3000 (expected: <= 1000)",
            null);
    assertTrue(e.connectionLevel());
    assertEquals(7, e.streamId());
    assertEquals(
        "stream 7: body length: 3000 (expected: <= 1000) (frame header at offset 1024)",
        e.getMessage());
  }

  @Test
  void withoutDetailOrOffsetTheMessageIsTheReason() {
    CqlFrameException e =
        new CqlFrameException(Reason.CONNECTION_CLOSED, true, -1, -1, null, null, null);
    assertEquals(-1, e.offset());
    assertNull(e.detail());
    assertEquals("connection closed", e.getMessage());
  }

  @Test
  void aReasonIsRequired() {
    assertThrows(
        NullPointerException.class,
        () -> new CqlFrameException(null, true, -1, -1, null, "detail", null));
  }

  @Test
  void theReasonIsTypedAtBothLevels() {
    CqlParseException parse = parseError();
    CqlFrameException e =
        new CqlFrameException(Reason.BAD_RESULT, false, 3, 1000, null, parse.getMessage(), parse);
    Reason own = e.reason(); // the override returns the frame errors' enum
    CqlException.Reason base = ((CqlException) e).reason();
    assertSame(Reason.BAD_RESULT, own);
    assertSame(own, base, "the same constant through the base class");
    assertEquals("BAD_RESULT", base.name());
    assertSame(parse, e.parseError());
    assertSame(
        CqlParseException.Reason.TRUNCATED,
        ((CqlException) e.getCause()).reason(),
        "the cause's reason, of another enum, through the same type");
  }

  /** A real parser error: a ROWS body that ends inside its metadata. */
  private static CqlParseException parseError() {
    byte[] body = {0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1};
    try {
      new ResultReader(4).read(Unpooled.wrappedBuffer(body), new CountingSink());
    } catch (CqlParseException e) {
      assertTrue(e.offset() > 0, "offset " + e.offset());
      return e;
    }
    throw new AssertionError("the body parsed");
  }
}
