package io.cqlrows.client.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Smoke test of {@link CassandraServer}: its native port answers a protocol v4 OPTIONS request with
 * SUPPORTED. Plain sockets, no Netty.
 */
@Tag("live")
class CassandraServerLiveTest {

  /** Version 4 request, no flags, stream 0, opcode OPTIONS (0x05), empty body. */
  private static final byte[] OPTIONS = {0x04, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00};

  @Test
  void nativePortAnswersOptionsWithSupported() throws IOException {
    CassandraServer server = CassandraServer.get();
    try (Socket socket = new Socket()) {
      socket.connect(server.address(), 10_000);
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(OPTIONS);
      out.flush();

      DataInputStream in = new DataInputStream(socket.getInputStream());
      assertEquals(0x84, in.readUnsignedByte(), "version: v4 response");
      in.readUnsignedByte(); // flags: the server may set some (e.g. warnings); not checked
      assertEquals(0, in.readUnsignedShort(), "stream");
      assertEquals(0x06, in.readUnsignedByte(), "opcode: SUPPORTED");
      int length = in.readInt();
      assertTrue(length > 2 && length < 64 * 1024, "body length " + length);
      byte[] body = new byte[length];
      in.readFully(body);

      Map<String, List<String>> supported =
          stringMultimap(new DataInputStream(new ByteArrayInputStream(body)));
      assertTrue(supported.containsKey("CQL_VERSION"), "SUPPORTED " + supported);
    }
  }

  /** A [string multimap]: [short] n, then n pairs of [string] key and [string list]. */
  private static Map<String, List<String>> stringMultimap(DataInputStream in) throws IOException {
    Map<String, List<String>> map = new LinkedHashMap<>();
    for (int n = in.readUnsignedShort(); n > 0; n--) {
      String key = string(in);
      List<String> values = new ArrayList<>();
      for (int m = in.readUnsignedShort(); m > 0; m--) {
        values.add(string(in));
      }
      map.put(key, values);
    }
    assertEquals(0, in.available(), "bytes after the multimap");
    return map;
  }

  private static String string(DataInputStream in) throws IOException {
    byte[] bytes = new byte[in.readUnsignedShort()];
    in.readFully(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
