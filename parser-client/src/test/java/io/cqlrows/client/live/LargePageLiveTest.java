package io.cqlrows.client.live;

import static io.cqlrows.client.live.LiveClients.get;
import static io.cqlrows.client.live.LiveCorpus.KEYSPACE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cqlrows.client.QueryResult;
import io.cqlrows.core.sink.ColumnarSink;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.time.Duration;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One page of more than 64 MiB: {@value #DEFAULT_ROWS} rows of {@code vector<float, 1536>} (6,144
 * bytes each: 64.45 MiB of floats) written by the driver, read by one v5 QUERY whose page size
 * exceeds the row count, so the server sends one ROWS envelope of about 68 MB, sliced into about
 * 520 non-self-contained segments (LZ4-compressed with v5 + LZ4). Decoded into a {@link
 * ColumnarSink}: every id once, every float equal to the generator's, bit for bit.
 *
 * <p>{@code -Dcqlrows.live.bigPageRows=N} changes the row count (to find what a smaller server
 * copes with). The test JVM holds the envelope and a {@code float[rows * 1536]}, about 140 MB.
 */
class LargePageLiveTest extends LiveTestSupport {
  static final int DEFAULT_ROWS = 11_000;
  static final int DIMENSION = 1536;
  private static final int ROWS = Integer.getInteger("cqlrows.live.bigPageRows", DEFAULT_ROWS);
  private static final String TABLE = KEYSPACE + ".big_page";

  @BeforeAll
  static void writeTheRows() throws InterruptedException {
    write(session, TABLE, ROWS);
  }

  /**
   * Creates {@code table} ({@code id int PRIMARY KEY, v vector<float, 1536>}) afresh, in the
   * keyspace {@link LiveCorpus#KEYSPACE} (created if needed), and writes rows 0 to {@code rows - 1}
   * of {@link #row}.
   */
  static void write(CqlSession session, String table, int rows) throws InterruptedException {
    ddl(
        session,
        "CREATE KEYSPACE IF NOT EXISTS "
            + KEYSPACE
            + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    ddl(session, "DROP TABLE IF EXISTS " + table);
    ddl(
        session,
        "CREATE TABLE " + table + " (id int PRIMARY KEY, v vector<float, " + DIMENSION + ">)");
    long start = System.nanoTime();
    PreparedStatement insert = session.prepare("INSERT INTO " + table + " (id, v) VALUES (?, ?)");
    LiveDriver.executeAll(session, rows, id -> insert.bind(id, LiveCorpus.vector(row(id))));
    System.err.printf(
        "[cqlrows] %d rows of vector<float, %d> written in %d ms%n",
        rows, DIMENSION, (System.nanoTime() - start) / 1_000_000);
  }

  @ParameterizedTest
  @EnumSource(
      value = Combo.class,
      names = {"V5", "V5_LZ4"})
  void aPageOfMoreThan64MiBDecodesIntoColumns(Combo combo) {
    AtomicLong wireBytes = new AtomicLong();
    client =
        LiveClients.connect(
            combo,
            group,
            p ->
                p.addFirst(
                    "count",
                    new ChannelInboundHandlerAdapter() {
                      @Override
                      public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        if (msg instanceof ByteBuf b) {
                          wireBytes.addAndGet(b.readableBytes());
                        }
                        ctx.fireChannelRead(msg);
                      }
                    }));
    ColumnarSink columns = new ColumnarSink();
    long start = System.nanoTime();
    QueryResult page = get(client.query("SELECT id, v FROM " + TABLE, columns, ROWS + 1000, null));
    long took = System.nanoTime() - start;

    assertFalse(page.hasMorePages(), "one page");
    assertEquals(ROWS, page.rows().rowCount());
    assertEquals(ROWS, columns.rowCount());
    int[] ids = columns.column(0).ints();
    float[] matrix = columns.column(1).floats();
    assertEquals(DIMENSION, columns.column(1).width());
    assertEquals((long) ROWS * DIMENSION, matrix.length);
    assertTrue(columns.column(1).nulls().isEmpty(), "no NULL vectors");
    BitSet seen = new BitSet(ROWS);
    for (int r = 0; r < ROWS; r++) {
      int id = ids[r];
      if (id < 0 || id >= ROWS || seen.get(id)) {
        fail(combo + ": row " + r + " has id " + id + (seen.get(id) ? " again" : ""));
      }
      seen.set(id);
      float[] expected = row(id);
      for (int j = 0; j < DIMENSION; j++) {
        float actual = matrix[r * DIMENSION + j];
        if (Float.floatToRawIntBits(actual) != Float.floatToRawIntBits(expected[j])) {
          fail(
              combo
                  + ": id "
                  + id
                  + ", v["
                  + j
                  + "] = "
                  + actual
                  + " (expected: "
                  + expected[j]
                  + ")");
        }
      }
    }
    long floatBytes = (long) ROWS * DIMENSION * Float.BYTES;
    if (ROWS == DEFAULT_ROWS) {
      assertTrue(floatBytes > 64L << 20, floatBytes + " bytes of floats");
    }
    if (combo.compression() == io.cqlrows.netty.frame.Compression.NONE) {
      assertTrue(wireBytes.get() > floatBytes, wireBytes + " bytes on the wire");
    }
    System.err.printf(
        "[cqlrows] %s: one page of %d rows (%.1f MiB of floats, %.1f MiB on the"
            + " wire) read and decoded in %d ms%n",
        combo, ROWS, floatBytes / 1048576.0, wireBytes.get() / 1048576.0, took / 1_000_000);
  }

  /** Row {@code id}'s vector: sines, then exact multiples of 1/64 spread over +-512. */
  static float[] row(int id) {
    float[] v = new float[DIMENSION];
    for (int j = 0; j < DIMENSION; j++) {
      v[j] =
          j < 8
              ? (float) StrictMath.sin(id * 8 + j)
              : (Math.floorMod(id * 7919 + j * 104_729, 65_536) - 32_768) / 64.0f;
    }
    return v;
  }

  private static void ddl(CqlSession session, String cql) {
    session.execute(SimpleStatement.newInstance(cql).setTimeout(Duration.ofSeconds(60)));
  }
}
