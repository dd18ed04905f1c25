package io.cqlrows.netty.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CqlServerErrorTest {
  @Test
  void decodesCodeAndMessageAndIgnoresWhatFollows() {
    // Unavailable: code, message, then consistency, required, alive
    ByteBuf body =
        CqlBytes.create()
            .int32(0x1000)
            .string("Cannot achieve consistency")
            .int16(4)
            .int32(2)
            .int32(1)
            .toByteBuf();
    CqlServerError e = CqlServerError.decode(body);
    assertEquals(0x1000, e.code());
    assertEquals("Cannot achieve consistency", e.serverMessage());
    assertEquals("server error 0x1000 (Unavailable): Cannot achieve consistency", e.getMessage());
    assertEquals(0, body.readerIndex(), "borrowed, not read");
    body.release();
  }

  @Test
  void rejectsABodyTooShortForItsMessage() {
    ByteBuf shortBody = CqlBytes.create().int32(0x2200).toByteBuf();
    ByteBuf lying = CqlBytes.create().int32(0x2200).int16(10).hex("4142").toByteBuf();
    assertThrows(IllegalArgumentException.class, () -> CqlServerError.decode(shortBody));
    assertThrows(IllegalArgumentException.class, () -> CqlServerError.decode(lying));
    shortBody.release();
    lying.release();
  }

  /** ScyllaDB's rate-limit error (exceptions.hh, transport/server.cc), code from SUPPORTED. */
  @Test
  void decodesScyllasRateLimitErrorUnderTheExtension() {
    ProtocolFeatures scylla =
        ProtocolFeatures.negotiate(Map.of("SCYLLA_RATE_LIMIT_ERROR", List.of("ERROR_CODE=61440")));
    ByteBuf body = CqlBytes.create().int32(0xF000).string("rate limit").int8(0).int8(1).toByteBuf();
    CqlServerError e = CqlServerError.decode(body, scylla);
    assertTrue(e.isRateLimitError());
    assertEquals(CqlServerError.OP_READ, e.opType());
    assertTrue(e.rejectedByCoordinator());
    assertEquals("Rate_limit_error", e.codeName());
    assertEquals("server error 0xf000 (Rate_limit_error): rate limit", e.getMessage());

    CqlServerError plain = CqlServerError.decode(body);
    assertFalse(plain.isRateLimitError());
    assertEquals(-1, plain.opType());
    assertEquals("unknown", plain.codeName());
    body.release();

    ByteBuf cut = CqlBytes.create().int32(0xF000).string("rate limit").int8(0).toByteBuf();
    assertThrows(IllegalArgumentException.class, () -> CqlServerError.decode(cut, scylla));
    cut.release();
    ByteBuf other = CqlBytes.create().int32(0x2200).string("invalid").toByteBuf();
    assertFalse(CqlServerError.decode(other, scylla).isRateLimitError());
    other.release();
  }

  @Test
  void namesTheCodesOfTheSpec() {
    assertEquals("Invalid", CqlServerError.name(CqlServerError.INVALID));
    assertEquals("Unprepared", CqlServerError.name(CqlServerError.UNPREPARED));
    assertEquals("unknown", CqlServerError.name(0x7777));
  }
}
