package io.cqlrows.client.live;

import static io.cqlrows.client.live.LiveClients.get;
import static io.cqlrows.client.live.LiveClients.int32;
import static io.cqlrows.client.live.LiveCorpus.KEYSPACE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cqlrows.client.PreparedStatement;
import io.cqlrows.client.QueryResult;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.RowsMetadata;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.testing.Corpus;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * v5's {@code Metadata_changed} (native_protocol_v5.spec section 4.2.5.2) against a live server: a
 * prepared {@code SELECT *} is executed, the table gets a column by {@code ALTER TABLE ... ADD}
 * (through the driver, another connection), which makes Cassandra forget the statement; the driver
 * prepares it again, and our client executes it again with its old {@code result_metadata_id}. The
 * server answers with full metadata, {@code Metadata_changed} and a new id, which {@link CqlClient}
 * adopts: the third execution sends the new id and gets {@code No_metadata} rows, decoded with the
 * new columns.
 */
class MetadataChangedLiveTest extends LiveTestSupport {

  @BeforeAll
  static void createTheKeyspace() {
    session.execute(
        SimpleStatement.newInstance(
                "CREATE KEYSPACE IF NOT EXISTS "
                    + KEYSPACE
                    + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
            .setTimeout(Duration.ofSeconds(60)));
  }

  @ParameterizedTest
  @EnumSource(
      value = Combo.class,
      names = {"V5", "V5_LZ4"})
  void theClientFollowsMetadataChangedAfterAlterTableAdd(Combo combo) {
    String table = KEYSPACE + ".metadata_changed_" + combo.name().toLowerCase(Locale.ROOT);
    ddl("DROP TABLE IF EXISTS " + table);
    ddl("CREATE TABLE " + table + " (id int PRIMARY KEY, a text, b int)");
    session.execute("INSERT INTO " + table + " (id, a, b) VALUES (1, 'one', 1)");
    session.execute("INSERT INTO " + table + " (id, a, b) VALUES (2, 'two', 2)");

    client = LiveClients.connect(combo, group, "metadata-changed");
    PreparedResult prepared = get(client.prepare("SELECT * FROM " + table + " WHERE id = ?"));
    PreparedStatement statement = client.statement(prepared);
    byte[] firstId = statement.resultMetadataId();
    assertNotNull(firstId, "v5 PREPARED carries a result_metadata_id");
    QueryResult[] outcome = new QueryResult[1];

    ObjectNode before = LiveClients.execute(client, prepared, outcome, int32(1));
    RowsMetadata metadata = outcome[0].rows().metadata();
    assertTrue(metadata.noMetadata(), "before the ALTER: No_metadata");
    assertFalse(metadata.metadataChanged());
    assertEquals(Corpus.json("[[1,\"one\",1]]"), before.get("rows"));

    ddl("ALTER TABLE " + table + " ADD added text");
    session.execute("UPDATE " + table + " SET added = 'new column' WHERE id IN (1, 2)");
    // Cassandra drops the table's prepared statements on ALTER: until someone prepares the
    // statement again, EXECUTE is refused. Another client (the driver) does; our handle keeps
    // the old result_metadata_id, as a driver's does when another client re-prepared.
    CqlServerError unprepared =
        assertInstanceOf(
            CqlServerError.class,
            assertThrows(
                    ExecutionException.class,
                    () ->
                        client
                            .execute(prepared, new RowsCollector(), 0, null, int32(1))
                            .get(LiveClients.TIMEOUT_SECONDS, TimeUnit.SECONDS))
                .getCause());
    assertEquals(CqlServerError.UNPREPARED, unprepared.code());
    session.prepare("SELECT * FROM " + table + " WHERE id = ?");

    ObjectNode changed = LiveClients.execute(client, prepared, outcome, int32(1));
    metadata = outcome[0].rows().metadata();
    assertTrue(metadata.metadataChanged(), "Metadata_changed after the ALTER");
    assertFalse(metadata.noMetadata());
    assertNotNull(metadata.newMetadataId());
    assertFalse(Arrays.equals(firstId, metadata.newMetadataId()), "a new result_metadata_id");
    assertEquals(4, metadata.columns().size());
    assertEquals(Corpus.json("[[1,\"one\",\"new column\",1]]"), changed.get("rows"));
    assertEquals("added", changed.get("columns").get(2).get("name").asText());
    assertArrayEquals(metadata.newMetadataId(), statement.resultMetadataId(), "adopted");
    assertEquals(metadata.columns(), statement.resultColumns());

    ObjectNode after = LiveClients.execute(client, prepared, outcome, int32(2));
    metadata = outcome[0].rows().metadata();
    assertTrue(metadata.noMetadata(), "with the new id: No_metadata again");
    assertFalse(metadata.metadataChanged());
    assertEquals(
        Corpus.json("[[2,\"two\",\"new column\",2]]"),
        after.get("rows"),
        "decoded with the new columns");
    assertEquals(changed.get("columns"), after.get("columns"));
  }

  private static void ddl(String cql) {
    session.execute(SimpleStatement.newInstance(cql).setTimeout(Duration.ofSeconds(60)));
  }
}
