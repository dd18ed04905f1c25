package io.cqlrows.bench.rows;

import io.cqlrows.core.sink.ColumnarSink;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * The ROWS pages the benchmarks read, each built from a fixed seed: every column draws its values
 * from the same {@code Random(1234)}, so every run, fork and benchmark reads the same bytes.
 */
public enum RowsShape {
  /** 200 rows of {@code id int, v vector<float, 768>}. */
  VECTOR_768F(200) {
    @Override
    void build(Page p, Random r) {
      floatVectors(p, r, 768);
    }
  },
  /** 200 rows of {@code id int, v vector<float, 1536>}. */
  VECTOR_1536F(200) {
    @Override
    void build(Page p, Random r) {
      floatVectors(p, r, 1536);
    }
  },
  /** 200 rows of {@code id int, v vector<double, 128>}. */
  VECTOR_128D(200) {
    @Override
    void build(Page p, Random r) {
      p.body.column("id", INT).customColumn("v", RowsBody.vectorClass("DoubleType", 128));
      p.body.int32(p.rows);
      for (int row = 0; row < p.rows; row++) {
        p.idCell(row);
        p.body.int32(128 * 8);
        p.vectorOffsets[row] = p.body.size();
        for (int i = 0; i < 128; i++) {
          p.body.int64(Double.doubleToRawLongBits(r.nextGaussian()));
        }
        p.values++;
      }
      p.vectorDimension = 128;
      p.vectorElementBytes = 8;
    }
  },
  /** 1,000 rows of {@code id int, v vector<text, 8>}: elements of 0 to 24 ASCII characters. */
  VECTOR_TEXT8(1_000) {
    @Override
    void build(Page p, Random r) {
      p.body.column("id", INT).customColumn("v", RowsBody.vectorClass("UTF8Type", 8));
      p.body.int32(p.rows);
      for (int row = 0; row < p.rows; row++) {
        p.idCell(row);
        RowsBody cell = new RowsBody();
        for (int i = 0; i < 8; i++) {
          byte[] text = ascii(r, r.nextInt(25));
          cell.uvint(text.length).raw(text);
        }
        p.body.cell(cell.toByteArray());
        p.values++;
      }
    }
  },
  /** 1,000 rows of {@code id int, v vector<smallint, 64>}: each element vint 2 + 2 bytes. */
  VECTOR_SMALLINT64(1_000) {
    @Override
    void build(Page p, Random r) {
      p.body.column("id", INT).customColumn("v", RowsBody.vectorClass("ShortType", 64));
      p.body.int32(p.rows);
      for (int row = 0; row < p.rows; row++) {
        p.idCell(row);
        RowsBody cell = new RowsBody();
        for (int i = 0; i < 64; i++) {
          cell.uvint(2).int16(r.nextInt(65536));
        }
        p.body.cell(cell.toByteArray());
        p.values++;
      }
    }
  },
  /**
   * 5,000 rows of 10 columns: int (never NULL), bigint, text (~20 chars), uuid, timestamp, double,
   * boolean, blob (32 bytes), float, date; 10% of the cells after the first are NULL.
   */
  MIXED_SCALARS(5_000) {
    @Override
    void build(Page p, Random r) {
      p.body
          .column("id", INT)
          .column("big", BIGINT)
          .column("txt", VARCHAR)
          .column("u", UUID)
          .column("ts", TIMESTAMP)
          .column("d", DOUBLE)
          .column("b", BOOLEAN)
          .column("bl", BLOB)
          .column("f", FLOAT)
          .column("dt", DATE);
      p.body.int32(p.rows);
      for (int row = 0; row < p.rows; row++) {
        p.idCell(row);
        for (int c = 1; c < 10; c++) {
          if (r.nextInt(10) == 0) {
            p.body.nullCell();
            continue;
          }
          p.values++;
          switch (c) {
            case 1 -> p.body.longCell(r.nextLong());
            case 2 -> p.body.cell(ascii(r, 14 + r.nextInt(13)));
            case 3 -> p.body.int32(16).int64(r.nextLong()).int64(r.nextLong());
            case 4 -> p.body.longCell(1_700_000_000_000L + r.nextInt(1 << 30));
            case 5 -> p.body.longCell(Double.doubleToRawLongBits(r.nextDouble() * 1e6));
            case 6 -> p.body.int32(1).int8(r.nextBoolean() ? 1 : 0);
            case 7 -> {
              byte[] blob = new byte[32];
              r.nextBytes(blob);
              p.body.cell(blob);
            }
            case 8 -> p.body.intCell(Float.floatToRawIntBits(r.nextFloat()));
            case 9 -> p.body.intCell((1 << 31) + 19_000 + r.nextInt(2_000));
            default -> throw new AssertionError(c);
          }
        }
      }
    }
  },
  /**
   * 2,000 rows of {@code id int, l list<int>} (0 to 8 elements), {@code m map<text, int>} (0 to 4
   * entries) and a UDT {@code bench.point(x int, label text)}.
   */
  COLLECTIONS(2_000) {
    @Override
    void build(Page p, Random r) {
      p.body.column("id", INT);
      p.body.string("l").int16(LIST).int16(INT);
      p.body.string("m").int16(MAP).int16(VARCHAR).int16(INT);
      p.body
          .string("p")
          .int16(UDT)
          .string("bench")
          .string("point")
          .int16(2)
          .string("x")
          .int16(INT)
          .string("label")
          .int16(VARCHAR);
      p.body.int32(p.rows);
      for (int row = 0; row < p.rows; row++) {
        p.idCell(row);
        RowsBody list = new RowsBody();
        int n = r.nextInt(9);
        list.int32(n);
        for (int i = 0; i < n; i++) {
          list.int32(4).int32(r.nextInt());
        }
        p.body.cell(list.toByteArray());
        RowsBody map = new RowsBody();
        n = r.nextInt(5);
        map.int32(n);
        for (int i = 0; i < n; i++) {
          // distinct keys: the driver's map codec would drop duplicates
          byte[] key = ("k" + i + "-" + r.nextInt(1000)).getBytes(StandardCharsets.US_ASCII);
          map.int32(key.length).raw(key).int32(4).int32(r.nextInt());
        }
        p.body.cell(map.toByteArray());
        byte[] label = ascii(r, 4 + r.nextInt(12));
        p.body.cell(
            new RowsBody()
                .int32(4)
                .int32(r.nextInt())
                .int32(label.length)
                .raw(label)
                .toByteArray());
        p.values += 3;
      }
    }
  },
  /**
   * 5,000 rows of {@code id int}, {@code a ascii} (12 to 20 characters), {@code t text} (32 to 48
   * ASCII characters), {@code u text} (about 60 characters of words mixing ASCII, Latin-1 accents,
   * CJK and one emoji or more, so never a Latin-1 string) and {@code l list<text>} (0 to 4 ASCII
   * strings of 3 to 10 characters); no NULLs.
   */
  TEXT_HEAVY(5_000) {
    @Override
    void build(Page p, Random r) {
      p.body.column("id", INT).column("a", ASCII).column("t", VARCHAR).column("u", VARCHAR);
      p.body.string("l").int16(LIST).int16(VARCHAR);
      p.body.int32(p.rows);
      for (int row = 0; row < p.rows; row++) {
        p.idCell(row);
        p.body.cell(ascii(r, 12 + r.nextInt(9)));
        p.body.cell(ascii(r, 32 + r.nextInt(17)));
        p.body.cell(unicode(r, 56 + r.nextInt(9)).getBytes(StandardCharsets.UTF_8));
        RowsBody list = new RowsBody();
        int n = r.nextInt(5);
        list.int32(n);
        for (int i = 0; i < n; i++) {
          byte[] e = ascii(r, 3 + r.nextInt(8));
          list.int32(e.length).raw(e);
        }
        p.body.cell(list.toByteArray());
        p.values += 4;
      }
    }
  },
  /**
   * The corpus's scalars page: the RESULT of {@code SELECT * FROM corpus.scalars} (41 rows of 21
   * columns, every native type but counter, with NULL and empty cells) as a real Cassandra 5.0.6
   * sent it on protocol v4, read from the frame at byte {@value #CORPUS_SCALARS_FRAME} of the
   * corpus's {@code a-v4/conn-01.s2c.bin}.
   */
  CORPUS_SCALARS(41) {
    @Override
    void build(Page p, Random r) {
      p.bytes = CorpusPage.body(CORPUS_STREAM, CORPUS_SCALARS_FRAME);
      CorpusPage.count(p);
    }
  };

  /** The corpus stream {@link #CORPUS_SCALARS} is read from, a class-path resource here. */
  static final String CORPUS_STREAM = "/io/cqlrows/bench/corpus/a-v4/conn-01.s2c.bin";

  /** Where the frame of {@link #CORPUS_SCALARS} starts in {@link #CORPUS_STREAM}. */
  static final int CORPUS_SCALARS_FRAME = 76;

  /** Words {@link #unicode} draws from: ASCII, Latin-1 accents, CJK. */
  private static final String[] WORDS = {
    "caf\u00e9",
    "na\u00efve",
    "\u00fcber",
    "se\u00f1or",
    "stra\u00dfe",
    "gar\u00e7on",
    "\u00e0 la",
    "\u6771\u4eac",
    "\u65e5\u672c\u8a9e",
    "\u4e2d\u6587",
    "\ud55c\uad6d\uc5b4",
    "data",
    "row",
    "vector",
    "page"
  };

  /** Emoji outside the BMP (surrogate pairs in UTF-16, four bytes in UTF-8). */
  private static final String[] EMOJI = {"\ud83d\ude00", "\ud83d\ude80", "\ud83c\udf89"};

  static final int ASCII = 0x01;
  static final int BIGINT = 0x02;
  static final int BLOB = 0x03;
  static final int BOOLEAN = 0x04;
  static final int DOUBLE = 0x07;
  static final int FLOAT = 0x08;
  static final int INT = 0x09;
  static final int TIMESTAMP = 0x0B;
  static final int UUID = 0x0C;
  static final int VARCHAR = 0x0D;
  static final int DATE = 0x11;
  static final int LIST = 0x20;
  static final int MAP = 0x21;
  static final int UDT = 0x30;

  private final int rows;

  RowsShape(int rows) {
    this.rows = rows;
  }

  /** Rows per page. */
  public int rows() {
    return rows;
  }

  abstract void build(Page p, Random r);

  /** Builds this shape's page from seed 1234. */
  public Page page() {
    Page p = new Page(this, rows);
    build(p, new Random(1234));
    if (p.bytes == null) {
      p.bytes = p.body.toByteArray();
    }
    return p;
  }

  static void floatVectors(Page p, Random r, int dimension) {
    p.body.column("id", INT).customColumn("v", RowsBody.vectorClass("FloatType", dimension));
    p.body.int32(p.rows);
    for (int row = 0; row < p.rows; row++) {
      p.idCell(row);
      p.body.int32(dimension * 4);
      p.vectorOffsets[row] = p.body.size();
      for (int i = 0; i < dimension; i++) {
        p.body.int32(Float.floatToRawIntBits((float) r.nextGaussian()));
      }
      p.values++;
    }
    p.vectorDimension = dimension;
    p.vectorElementBytes = 4;
  }

  static byte[] ascii(Random r, int length) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = (byte) ('a' + r.nextInt(26));
    }
    return b;
  }

  /**
   * Words of {@link #WORDS} separated by spaces, one emoji among them, until the string has at
   * least {@code length} UTF-16 characters.
   */
  static String unicode(Random r, int length) {
    StringBuilder sb = new StringBuilder(length + 16);
    int emojiAt = r.nextInt(4);
    for (int word = 0; sb.length() < length; word++) {
      if (word > 0) {
        sb.append(' ');
      }
      sb.append(word == emojiAt ? EMOJI[r.nextInt(EMOJI.length)] : WORDS[r.nextInt(WORDS.length)]);
    }
    return sb.toString();
  }

  /** One built page and what any correct decoding of it must report. */
  public static final class Page {
    final RowsShape shape;
    final RowsBody body;

    /** The RESULT body. */
    byte[] bytes;

    /** rows_count. */
    final int rows;

    /** Sum of the top-level {@code int} cells (the {@code id} column): a checksum. */
    long intSum;

    /** Non-NULL cells. */
    long values;

    /** Fixed-width vector shapes: where each row's vector value starts in {@link #bytes}. */
    final int[] vectorOffsets;

    int vectorDimension;
    int vectorElementBytes;

    Page(RowsShape shape, int rows) {
      this.shape = shape;
      this.rows = rows;
      this.body = new RowsBody(shape.columnCount());
      this.vectorOffsets = new int[rows];
    }

    void idCell(int row) {
      int id = row * 7919 + 17;
      body.intCell(id);
      intSum += id;
      values++;
    }

    /**
     * Throws unless {@code floats} (float vector shapes) or {@code doubles} (double ones) holds,
     * row-major from slot 0, every vector cell of this page with the raw bits of its big-endian
     * bytes: the check of any copy of the vectors, scalar or SIMD.
     */
    public void checkVectors(String what, float[] floats, double[] doubles) {
      ByteBuffer b = ByteBuffer.wrap(bytes); // big-endian
      int n = vectorDimension;
      for (int row = 0; row < rows; row++) {
        for (int i = 0; i < n; i++) {
          int at = vectorOffsets[row] + i * vectorElementBytes;
          boolean same =
              vectorElementBytes == 4
                  ? Float.floatToRawIntBits(floats[row * n + i]) == b.getInt(at)
                  : Double.doubleToRawLongBits(doubles[row * n + i]) == b.getLong(at);
          if (!same) {
            throw new IllegalStateException(
                what + " on " + shape + ": row " + row + " element " + i + " differs");
          }
        }
      }
    }

    /**
     * Throws unless {@code sink} holds this page: its rows, the sum of the {@code int} cells of
     * column 0, the non-NULL value count and, for fixed-width float and double vector shapes, every
     * element of the matrix (compared bit for bit with the cells of {@link #bytes}).
     */
    public void checkColumnar(String what, ColumnarSink sink) {
      long intSum = 0;
      long values = 0;
      for (int c = 0; c < sink.columnCount(); c++) {
        ColumnarSink.Column col = sink.column(c);
        values += sink.rowCount() - col.nulls().cardinality();
        if (c == 0) {
          for (int r = 0; r < sink.rowCount(); r++) {
            intSum += col.ints()[r];
          }
        }
      }
      check(what, sink.rowCount(), intSum, values);
      if (vectorDimension > 0) {
        checkVectors(what, sink.column(1).floats(), sink.column(1).doubles());
      }
    }

    /** Throws unless a decoding reported this page's rows, int checksum and value count. */
    public void check(String what, long rows, long intSum, long values) {
      if (rows != this.rows || intSum != this.intSum || values != this.values) {
        throw new IllegalStateException(
            what
                + " on "
                + shape
                + ": rows/intSum/values "
                + rows
                + "/"
                + intSum
                + "/"
                + values
                + ", expected "
                + this.rows
                + "/"
                + this.intSum
                + "/"
                + this.values);
      }
    }
  }

  int columnCount() {
    return switch (this) {
      case MIXED_SCALARS -> 10;
      case COLLECTIONS -> 4;
      case TEXT_HEAVY -> 5;
      case CORPUS_SCALARS -> 21;
      default -> 2;
    };
  }
}
