package io.cqlrows.client.live;

import static io.cqlrows.client.live.LiveClients.get;
import static io.cqlrows.client.live.LiveCorpus.KEYSPACE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.client.QueryResult;
import io.cqlrows.core.PagingState;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.sink.Row;
import io.cqlrows.core.sink.RowsCollector;
import java.util.BitSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The corpus's {@code vec128} table, 5,000 rows of {@code vector<float, 128>} written by the driver
 * (asynchronously, at most {@link LiveDriver#MAX_IN_FLIGHT} in flight; see {@link LiveCorpus}),
 * read by our client with page size 100, following {@code paging_state}: 50 full pages, every id
 * exactly once, every float as written.
 */
class PagingLiveTest extends LiveTestSupport {
  private static final int PAGE_SIZE = 100;

  @BeforeAll
  static void loadTheCorpus() throws InterruptedException {
    LiveCorpus.load(session);
  }

  @ParameterizedTest
  @EnumSource(Combo.class)
  void queryPagesThroughEveryRowOnce(Combo combo) {
    client = LiveClients.connect(combo, group, "paging");
    String cql = "SELECT id, v FROM " + KEYSPACE + ".vec128";
    readAllPages(
        combo, (sink, pagingState) -> get(client.query(cql, sink, PAGE_SIZE, pagingState)));
  }

  /** The same through a prepared statement: EXECUTE with Skip_metadata and paging state. */
  @ParameterizedTest
  @EnumSource(Combo.class)
  void executePagesThroughEveryRowOnce(Combo combo) {
    client = LiveClients.connect(combo, group, "paging");
    PreparedResult prepared = get(client.prepare("SELECT id, v FROM " + KEYSPACE + ".vec128"));
    readAllPages(
        combo,
        (sink, pagingState) -> {
          QueryResult page = get(client.execute(prepared, sink, PAGE_SIZE, pagingState));
          assertTrue(page.rows().metadata().noMetadata(), "No_metadata");
          return page;
        });
  }

  /** One page: QUERY or EXECUTE with the page size and paging state. */
  private interface PageRequest {
    QueryResult next(RowsCollector sink, PagingState pagingState);
  }

  private static void readAllPages(Combo combo, PageRequest request) {
    BitSet seen = new BitSet(LiveCorpus.VEC128_ROWS);
    int pages = 0;
    int rows = 0;
    PagingState pagingState = null;
    do {
      RowsCollector sink = new RowsCollector();
      QueryResult page = request.next(sink, pagingState);
      pages++;
      assertTrue(pages <= LiveCorpus.VEC128_ROWS / PAGE_SIZE + 1, combo + ": too many pages");
      assertEquals(page.rows().rowCount(), sink.rows().size());
      if (page.hasMorePages()) {
        assertEquals(PAGE_SIZE, sink.rows().size(), combo + ": page " + pages);
      }
      for (Row row : sink.rows()) {
        int id = row.getInt("id");
        assertTrue(id >= 0 && id < LiveCorpus.VEC128_ROWS, "id " + id);
        assertFalse(seen.get(id), combo + ": id " + id + " twice");
        seen.set(id);
        float[] v = row.getFloatVector("v");
        assertNotNull(v, "id " + id);
        assertArrayEquals(LiveCorpus.vec128(id), v, combo + ": id " + id);
        rows++;
      }
      pagingState = page.pagingState().orElse(null);
    } while (pagingState != null);
    assertEquals(LiveCorpus.VEC128_ROWS, rows, combo + ": rows");
    assertEquals(LiveCorpus.VEC128_ROWS, seen.cardinality());
    // Cassandra sets Has_more_pages on the 50th full page; the 51st is empty
    assertTrue(pages == 50 || pages == 51, combo + ": " + pages + " pages");
  }
}
