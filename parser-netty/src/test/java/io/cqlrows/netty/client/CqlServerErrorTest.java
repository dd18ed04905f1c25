package io.cqlrows.netty.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

class CqlServerErrorTest {
  @Test
  void decodesCodeAndMessageAndIgnoresWhatFollows() {
    // Unavailable: code, message, then consistency, required, alive
    ByteBuf body = CqlBytes.create().int32(0x1000).string("Cannot achieve consistency")
        .int16(4).int32(2).int32(1).toByteBuf();
    CqlServerError e = CqlServerError.decode(body);
    assertEquals(0x1000, e.code());
    assertEquals("Cannot achieve consistency", e.serverMessage());
    assertEquals("server error 0x1000 (Unavailable): Cannot achieve consistency",
        e.getMessage());
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

  @Test
  void namesTheCodesOfTheSpec() {
    assertEquals("Invalid", CqlServerError.name(CqlServerError.INVALID));
    assertEquals("Unprepared", CqlServerError.name(CqlServerError.UNPREPARED));
    assertEquals("unknown", CqlServerError.name(0x7777));
  }
}
