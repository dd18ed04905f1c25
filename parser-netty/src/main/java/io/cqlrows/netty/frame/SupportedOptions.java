package io.cqlrows.netty.frame;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes a SUPPORTED response (native_protocol_v4.spec section 4.2.4): the {@code [string
 * multimap]} of what the server accepts in STARTUP, e.g. {@code COMPRESSION: [lz4, snappy]}, and on
 * ScyllaDB its protocol extensions with their parameters ({@code SCYLLA_RATE_LIMIT_ERROR:
 * [ERROR_CODE=61440]}), which {@link io.cqlrows.core.ProtocolFeatures#negotiate} turns into the
 * extensions to ask for. Stateless.
 */
public final class SupportedOptions {
  private SupportedOptions() {}

  /**
   * Decodes a SUPPORTED body: {@code [short] n}, then n pairs of {@code [string]} key and {@code
   * [string list]} values.
   *
   * @param body the body after the envelope prelude. Borrowed: indices unchanged.
   * @return an unmodifiable map in wire order, with unmodifiable value lists
   * @throws IllegalArgumentException if a length runs past the body
   */
  public static Map<String, List<String>> decode(ByteBuf body) {
    Reader in = new Reader(body);
    int n = in.unsignedShort("option count");
    // each option takes at least a 2-byte key length and a 2-byte list length
    in.require(4L * n, "options");
    Map<String, List<String>> options = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      String key = in.string("option name");
      int values = in.unsignedShort("value count");
      in.require(2L * values, "values of " + key);
      List<String> list = new ArrayList<>(values);
      for (int v = 0; v < values; v++) {
        list.add(in.string("value of " + key));
      }
      options.put(key, Collections.unmodifiableList(list));
    }
    return Collections.unmodifiableMap(options);
  }

  /** Absolute reads over {@code [readerIndex, writerIndex)}, each checked. */
  private static final class Reader {
    private final ByteBuf buf;
    private final int end;
    private int position;

    Reader(ByteBuf buf) {
      this.buf = buf;
      this.position = buf.readerIndex();
      this.end = buf.writerIndex();
    }

    int unsignedShort(String field) {
      require(2, field);
      int v = buf.getUnsignedShort(position);
      position += 2;
      return v;
    }

    String string(String field) {
      int n = unsignedShort(field);
      require(n, field);
      String s = buf.toString(position, n, StandardCharsets.UTF_8);
      position += n;
      return s;
    }

    void require(long n, String field) {
      if (n > end - position) {
        throw new IllegalArgumentException(
            "SUPPORTED " + field + ": need " + n + " bytes, have " + (end - position));
      }
    }
  }
}
