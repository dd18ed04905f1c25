package io.cqlrows.netty.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.CqlException;
import io.cqlrows.core.CqlParseException;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** The fields of each kind of frame error, and the message derived from them. */
class CqlFrameExceptionTest {
  @Test
  void aConnectionErrorAtAFrameHeader() {
    CqlFrameException e =
        CqlFrameException.connectionError(
            Reason.BAD_VERSION, 1024, "version byte: 0x47 (expected: protocol version 3-6)");
    assertEquals(Reason.BAD_VERSION, e.reason());
    assertTrue(e.connectionLevel());
    assertEquals(-1, e.streamId());
    assertEquals(1024, e.offset());
    assertEquals("frame header", e.structure());
    assertNull(e.getCause());
    assertNull(e.parseError());
    assertInstanceOf(CqlException.class, e, "one hierarchy with the parser's errors");
    assertEquals(
        "version byte: 0x47 (expected: protocol version 3-6) (frame header at offset " + "1024)",
        e.getMessage());
  }

  @Test
  void aConnectionErrorKeepsItsCause() {
    IllegalStateException cause = new IllegalStateException("corrupt block");
    CqlFrameException e =
        CqlFrameException.connectionError(
            Reason.CORRUPT_COMPRESSION, 77, "segment", "LZ4 payload: corrupt block", cause);
    assertSame(cause, e.getCause());
    assertEquals("segment", e.structure());
    assertEquals("LZ4 payload: corrupt block (segment at offset 77)", e.getMessage());
  }

  @Test
  void aFrameErrorNamesItsStream() {
    CqlFrameException e =
        CqlFrameException.frameError(
            Reason.BAD_PRELUDE,
            7,
            300,
            "malformed frame prelude: warnings run past the body",
            null);
    assertFalse(e.connectionLevel());
    assertEquals(7, e.streamId());
    assertNull(e.structure());
    assertEquals(
        "stream 7: malformed frame prelude: warnings run past the body (connection "
            + "offset 300)",
        e.getMessage());
  }

  @Test
  void aLengthOverTheLimitIsConnectionLevelForTheStreamOfItsHeader() {
    CqlFrameException e =
        CqlFrameException.connectionError(
            Reason.FRAME_TOO_LARGE,
            7,
            1024,
            "frame header",
            "body length: 3000 (expected: <= 1000)",
            null);
    assertTrue(e.connectionLevel());
    assertEquals(7, e.streamId());
    assertEquals(1024, e.offset());
    assertEquals("frame header", e.structure());
    assertEquals(
        "stream 7: body length: 3000 (expected: <= 1000) (frame header at offset 1024)",
        e.getMessage());
  }

  @Test
  void withoutDetailOrOffsetTheMessageIsTheReason() {
    CqlFrameException e =
        CqlFrameException.connectionError(Reason.CONNECTION_CLOSED, -1, null, null, null);
    assertEquals(-1, e.offset());
    assertEquals("connection closed", e.getMessage());
  }

  @Test
  void aBadResultTranslatesTheParsersOffsetIntoTheConnection() {
    CqlParseException parse = parseError();
    CqlFrameException e = CqlFrameException.badResult(3, 1000, parse);
    assertEquals(Reason.BAD_RESULT, e.reason());
    assertFalse(e.connectionLevel());
    assertEquals(3, e.streamId());
    assertEquals(1000 + parse.offset(), e.offset());
    assertSame(parse, e.parseError());

    assertEquals(-1, CqlFrameException.badResult(3, -1, parse).offset(), "body offset unknown");
  }

  @Test
  void aBadPayloadNamesTheEntry() {
    CqlParseException parse = parseError();
    CqlFrameException e = CqlFrameException.badPayload(5, "tablets-routing-v1", parse);
    assertEquals(Reason.BAD_PAYLOAD, e.reason());
    assertFalse(e.connectionLevel());
    assertEquals(5, e.streamId());
    assertSame(parse, e.parseError());
    assertTrue(e.detail().startsWith("custom payload tablets-routing-v1: "), e.detail());
  }

  @Test
  void aTruncatedStreamIsConnectionLevelForItsStream() {
    CqlParseException parse = parseError();
    CqlFrameException e = CqlFrameException.truncatedStream(9, "connection closed", parse);
    assertEquals(Reason.TRUNCATED, e.reason());
    assertTrue(e.connectionLevel());
    assertEquals(9, e.streamId());
    assertSame(parse, e.parseError());
  }

  @Test
  void theReasonIsTypedAtBothLevels() {
    CqlFrameException e = CqlFrameException.badResult(3, 1000, parseError());
    Reason own = e.reason(); // the override returns the frame errors' enum
    CqlException.Reason base = ((CqlException) e).reason();
    assertSame(Reason.BAD_RESULT, own);
    assertSame(own, base, "the same constant through the base class");
    assertEquals("BAD_RESULT", base.name());
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
