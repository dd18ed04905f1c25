package io.cqlrows.client.live;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The live test support of this package for the live tests of other modules (parser-cli's run the
 * command jar against {@link CassandraServer}): the driver session, the corpus, the driver's rows
 * in the canonical JSON and their comparison, and the tables of {@link PagingLiveTest} and {@link
 * LargePageLiveTest}. Each method is the package-private one it names; this class only makes them
 * public. Stateless.
 */
public final class LiveFixtures {
  /** {@link LiveCorpus#KEYSPACE}. */
  public static final String KEYSPACE = LiveCorpus.KEYSPACE;

  /** {@link LiveCorpus#VEC128_ROWS}: the rows of {@code vec128}. */
  public static final int VEC128_ROWS = LiveCorpus.VEC128_ROWS;

  /** {@link LargePageLiveTest#DEFAULT_ROWS}: the rows of a page of more than 64 MiB. */
  public static final int BIG_PAGE_ROWS = LargePageLiveTest.DEFAULT_ROWS;

  /** {@link LargePageLiveTest#DIMENSION}: the floats of each of its vectors. */
  public static final int BIG_PAGE_DIMENSION = LargePageLiveTest.DIMENSION;

  private LiveFixtures() {}

  /** {@link LiveDriver#open}: a new driver session; the caller closes it. */
  public static CqlSession openSession(CassandraServer server) {
    return LiveDriver.open(server);
  }

  /** {@link LiveCorpus#load}: the corpus in {@link #KEYSPACE}, once per JVM; its tables. */
  public static List<String> loadCorpus(CqlSession session) throws InterruptedException {
    return LiveCorpus.load(session);
  }

  /** {@link LiveCorpus#vec128}: the vector of {@code vec128} row {@code id}. */
  public static float[] vec128(int id) {
    return LiveCorpus.vec128(id);
  }

  /**
   * {@link LiveClients#driverQuery}: the driver's rows of {@code cql}, every page, as {@code
   * {"columns": .., "rows": ..}} in the canonical JSON ({@link DriverJson}).
   */
  public static ObjectNode driverQuery(CqlSession session, String cql) {
    return LiveClients.driverQuery(session, SimpleStatement.newInstance(cql));
  }

  /**
   * {@link LiveAssertions#assertSameRows}: the same columns and rows, cell by cell, but for the
   * {@code vec_counter.v} cells the driver cannot decode.
   */
  public static void assertSameRows(String what, JsonNode driver, JsonNode ours) {
    LiveAssertions.assertSameRows(what, driver, ours);
  }

  /**
   * {@link LargePageLiveTest#write}: {@code table} (in {@link #KEYSPACE}) made afresh with {@code
   * rows} rows of {@code vector<float, 1536>}, {@link #bigPageRow} each.
   *
   * @param table the qualified name, e.g. {@code cqlrows_live.big_page_cli}
   */
  public static void writeBigPage(CqlSession session, String table, int rows)
      throws InterruptedException {
    LargePageLiveTest.write(session, table, rows);
  }

  /** {@link LargePageLiveTest#row}: the vector of row {@code id} of a big page table. */
  public static float[] bigPageRow(int id) {
    return LargePageLiveTest.row(id);
  }
}
