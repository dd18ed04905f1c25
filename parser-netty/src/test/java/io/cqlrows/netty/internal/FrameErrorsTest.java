package io.cqlrows.netty.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.CqlParseException;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** The fields each factory of {@link FrameErrors} sets. */
class FrameErrorsTest {
  @Test
  void aConnectionErrorWithoutAStructureIsAtAFrameHeader() {
    CqlFrameException e = FrameErrors.connectionError(Reason.BAD_LENGTH, 12, "body length: -1");
    assertEquals(Reason.BAD_LENGTH, e.reason());
    assertTrue(e.connectionLevel());
    assertEquals(-1, e.streamId());
    assertEquals(12, e.offset());
    assertEquals("frame header", e.structure());
    assertNull(e.getCause());
  }

  @Test
  void aConnectionErrorAtANamedStructure() {
    IllegalStateException cause = new IllegalStateException("corrupt block");
    CqlFrameException e =
        FrameErrors.connectionError(Reason.CORRUPT_COMPRESSION, 77, "segment", "LZ4", cause);
    assertTrue(e.connectionLevel());
    assertEquals(-1, e.streamId());
    assertEquals("segment", e.structure());
    assertSame(cause, e.getCause());
  }

  @Test
  void aConnectionErrorForTheStreamOfItsHeader() {
    CqlFrameException e =
        FrameErrors.connectionError(
            Reason.FRAME_TOO_LARGE, 7, 1024, "frame header", "body length: 3000", null);
    assertTrue(e.connectionLevel());
    assertEquals(7, e.streamId());
    assertEquals(1024, e.offset());
  }

  @Test
  void aFrameErrorIsLocalToItsStream() {
    CqlFrameException e = FrameErrors.frameError(Reason.UNKNOWN_OPCODE, 7, 300, "opcode", null);
    assertFalse(e.connectionLevel());
    assertEquals(7, e.streamId());
    assertEquals(300, e.offset());
    assertNull(e.structure());
  }

  @Test
  void aBadResultTranslatesTheParsersOffsetIntoTheConnection() {
    CqlParseException parse = parseError();
    CqlFrameException e = FrameErrors.badResult(3, 1000, parse);
    assertEquals(Reason.BAD_RESULT, e.reason());
    assertFalse(e.connectionLevel());
    assertEquals(3, e.streamId());
    assertEquals(1000 + parse.offset(), e.offset());
    assertSame(parse, e.parseError());

    assertEquals(-1, FrameErrors.badResult(3, -1, parse).offset(), "body offset unknown");
  }

  @Test
  void aBadPayloadNamesTheEntry() {
    CqlParseException parse = parseError();
    CqlFrameException e = FrameErrors.badPayload(5, "tablets-routing-v1", parse);
    assertEquals(Reason.BAD_PAYLOAD, e.reason());
    assertFalse(e.connectionLevel());
    assertEquals(5, e.streamId());
    assertSame(parse, e.parseError());
    assertTrue(e.detail().startsWith("custom payload tablets-routing-v1: "), e.detail());
  }

  @Test
  void aTruncatedStreamIsConnectionLevelForItsStream() {
    CqlParseException parse = parseError();
    CqlFrameException e = FrameErrors.truncatedStream(9, "connection closed", parse);
    assertEquals(Reason.TRUNCATED, e.reason());
    assertTrue(e.connectionLevel());
    assertEquals(9, e.streamId());
    assertSame(parse, e.parseError());
    assertTrue(e.detail().startsWith("connection closed; "), e.detail());
  }

  /** A real parser error: a ROWS body that ends inside its metadata. */
  private static CqlParseException parseError() {
    byte[] body = {0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1};
    try {
      new ResultReader(4).read(Unpooled.wrappedBuffer(body), new CountingSink());
    } catch (CqlParseException e) {
      return e;
    }
    throw new AssertionError("the body parsed");
  }
}
