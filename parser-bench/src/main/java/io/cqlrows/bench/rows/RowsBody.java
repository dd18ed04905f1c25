package io.cqlrows.bench.rows;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes a RESULT/ROWS body (native_protocol_v4.spec section 4.2.5.2) byte by byte: {@code int32
 * kind=2}, {@code int32 flags=1} (Global_tables_spec), {@code int32 columns_count}, the keyspace
 * and table, per column its name and {@code [option]}, {@code int32 rows_count}, then the cells as
 * {@code [bytes]}. The benchmarks' own builder: parser-core's {@code CqlBytes} lives in its test
 * jar, which main code does not depend on.
 */
final class RowsBody {
  static final String MARSHAL = "org.apache.cassandra.db.marshal.";

  private final ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 16);

  /** An empty buffer, for building a cell's value. */
  RowsBody() {}

  /** Starts a body with {@code columns} columns of table {@code bench.t}. */
  RowsBody(int columns) {
    int32(2);
    int32(1);
    int32(columns);
    string("bench");
    string("t");
  }

  RowsBody int8(int v) {
    out.write(v);
    return this;
  }

  RowsBody int16(int v) {
    out.write(v >>> 8);
    out.write(v);
    return this;
  }

  RowsBody int32(int v) {
    int16(v >>> 16);
    return int16(v);
  }

  RowsBody int64(long v) {
    int32((int) (v >>> 32));
    return int32((int) v);
  }

  RowsBody raw(byte[] b) {
    out.write(b, 0, b.length);
    return this;
  }

  /** {@code [string]}: int16 length + UTF-8. */
  RowsBody string(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    int16(b.length);
    return raw(b);
  }

  /** An unsigned vint (Cassandra's VIntCoding): the count of extra bytes in the leading ones. */
  RowsBody uvint(long v) {
    int extra = 0;
    while (extra < 8 && (v >>> (7 * (extra + 1))) != 0) {
      extra++;
    }
    if (extra == 8) {
      out.write(0xff);
      return int64(v);
    }
    int first = (int) (v >>> (8 * extra));
    first |= ~(0xff >>> extra) & 0xff;
    out.write(first);
    for (int i = extra - 1; i >= 0; i--) {
      out.write((int) (v >>> (8 * i)));
    }
    return this;
  }

  /** A col_spec of a native type: name and option id. */
  RowsBody column(String name, int optionId) {
    string(name);
    return int16(optionId);
  }

  /** A col_spec of a custom type (option 0x0000 + class name), e.g. a vector. */
  RowsBody customColumn(String name, String className) {
    string(name);
    int16(0);
    return string(className);
  }

  /** The class name of {@code vector<element, dimension>} as Cassandra sends it. */
  static String vectorClass(String elementClass, int dimension) {
    return MARSHAL + "VectorType(" + MARSHAL + elementClass + " , " + dimension + ")";
  }

  /** A NULL cell. */
  RowsBody nullCell() {
    return int32(-1);
  }

  /** A cell: int32 length + bytes. */
  RowsBody cell(byte[] value) {
    int32(value.length);
    return raw(value);
  }

  RowsBody intCell(int v) {
    int32(4);
    return int32(v);
  }

  RowsBody longCell(long v) {
    int32(8);
    return int64(v);
  }

  int size() {
    return out.size();
  }

  byte[] toByteArray() {
    return out.toByteArray();
  }
}
