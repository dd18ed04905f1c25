package io.cqlrows.bench.rows;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A RESULT body taken from a recorded server stream of the test corpus, and what any correct
 * decoding of it must report, counted here by a walk of its bytes that shares no code with the
 * parser.
 */
final class CorpusPage {
  private static final int HEADER = 9;
  private static final int CUSTOM = 0x0000;
  private static final int RESULT = 0x08;
  private static final int ROWS = 2;
  private static final int GLOBAL_TABLES_SPEC = 0x0001;
  private static final int HAS_MORE_PAGES = 0x0002;
  private static final int NO_METADATA = 0x0004;

  private CorpusPage() {}

  /** The body of the v4 RESULT frame that starts at {@code offset} of the resource. */
  static byte[] body(String resource, int offset) {
    byte[] stream;
    try (InputStream in = CorpusPage.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("no resource " + resource + " beside " + CorpusPage.class);
      }
      stream = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ByteBuffer b = ByteBuffer.wrap(stream);
    int version = b.get(offset) & 0xFF;
    int opcode = b.get(offset + 4) & 0xFF;
    int length = b.getInt(offset + 5);
    if (version != 0x84 || opcode != RESULT || offset + HEADER + length > stream.length) {
      throw new IllegalStateException(
          resource
              + " at "
              + offset
              + ": not a v4 RESULT frame"
              + " (version 0x"
              + Integer.toHexString(version)
              + ", opcode "
              + opcode
              + ")");
    }
    return Arrays.copyOfRange(stream, offset + HEADER, offset + HEADER + length);
  }

  /**
   * Sets the page's checks from its bytes: the rows, the non-NULL values (a cell of length 0 is a
   * value only for ascii, blob and text, whose empty value is one) and the sum of column 0's ints.
   * Only ROWS bodies with full metadata and native or custom column types.
   */
  static void count(RowsShape.Page p) {
    ByteBuffer b = ByteBuffer.wrap(p.bytes);
    if (b.getInt() != ROWS) {
      throw new IllegalStateException(p.shape + ": not a ROWS result");
    }
    int flags = b.getInt();
    int columns = b.getInt();
    if ((flags & NO_METADATA) != 0) {
      throw new IllegalStateException(p.shape + ": no metadata");
    }
    if ((flags & HAS_MORE_PAGES) != 0) {
      skipBytes(b);
    }
    if ((flags & GLOBAL_TABLES_SPEC) != 0) {
      skipString(b);
      skipString(b);
    }
    int[] types = new int[columns];
    for (int c = 0; c < columns; c++) {
      if ((flags & GLOBAL_TABLES_SPEC) == 0) {
        skipString(b);
        skipString(b);
      }
      skipString(b);
      types[c] = b.getShort();
      if (types[c] == CUSTOM) {
        skipString(b); // the class name, e.g. DurationType, which v4 sends as a custom type
      } else if (types[c] >= 0x20) {
        throw new IllegalStateException(p.shape + ": column " + c + " is not a native type");
      }
    }
    if (types[0] != RowsShape.INT) {
      throw new IllegalStateException(p.shape + ": column 0 is not an int");
    }
    int rows = b.getInt();
    if (rows != p.rows) {
      throw new IllegalStateException(p.shape + ": " + rows + " rows, expected " + p.rows);
    }
    for (int row = 0; row < rows; row++) {
      for (int c = 0; c < columns; c++) {
        int length = b.getInt();
        if (length < 0) {
          continue;
        }
        int t = types[c];
        if (length > 0 || t == RowsShape.ASCII || t == RowsShape.BLOB || t == RowsShape.VARCHAR) {
          p.values++;
        }
        if (c == 0 && length == 4) {
          p.intSum += b.getInt(b.position());
        }
        b.position(b.position() + length);
      }
    }
    if (b.hasRemaining()) {
      throw new IllegalStateException(p.shape + ": " + b.remaining() + " bytes after the rows");
    }
  }

  private static void skipString(ByteBuffer b) {
    b.position(b.position() + 2 + (b.getShort(b.position()) & 0xFFFF));
  }

  private static void skipBytes(ByteBuffer b) {
    int n = b.getInt();
    b.position(b.position() + Math.max(n, 0));
  }
}
