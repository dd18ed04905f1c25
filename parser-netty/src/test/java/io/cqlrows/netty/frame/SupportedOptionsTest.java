package io.cqlrows.netty.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** SUPPORTED bodies: Cassandra's and ScyllaDB's (transport/server.cc write_string_multimap). */
class SupportedOptionsTest {
  @Test
  void decodesTheMultimapInWireOrder() {
    ByteBuf body =
        CqlBytes.create()
            .int16(3)
            .string("COMPRESSION")
            .int16(2)
            .string("lz4")
            .string("snappy")
            .string("SCYLLA_RATE_LIMIT_ERROR")
            .int16(1)
            .string("ERROR_CODE=61440")
            .string("TABLETS_ROUTING_V1")
            .int16(1)
            .string("")
            .toByteBuf();
    Map<String, List<String>> options = SupportedOptions.decode(body);
    assertEquals(
        List.of("COMPRESSION", "SCYLLA_RATE_LIMIT_ERROR", "TABLETS_ROUTING_V1"),
        List.copyOf(options.keySet()));
    assertEquals(List.of("lz4", "snappy"), options.get("COMPRESSION"));
    assertEquals(List.of(""), options.get("TABLETS_ROUTING_V1"));
    assertEquals(0, body.readerIndex(), "borrowed, not read");
    assertThrows(UnsupportedOperationException.class, () -> options.put("x", List.of()));
    body.release();
  }

  @Test
  void everyCutIsAnIllegalArgument() {
    byte[] full =
        CqlBytes.create()
            .int16(2)
            .string("CQL_VERSION")
            .int16(1)
            .string("3.4.7")
            .string("COMPRESSION")
            .int16(2)
            .string("lz4")
            .string("snappy")
            .toArray();
    for (int n = 0; n < full.length; n++) {
      ByteBuf cut = io.netty.buffer.Unpooled.wrappedBuffer(full, 0, n);
      assertThrows(IllegalArgumentException.class, () -> SupportedOptions.decode(cut), "" + n);
    }
    ByteBuf bomb = CqlBytes.create().int16(65535).toByteBuf();
    assertThrows(IllegalArgumentException.class, () -> SupportedOptions.decode(bomb));
    bomb.release();
  }
}
