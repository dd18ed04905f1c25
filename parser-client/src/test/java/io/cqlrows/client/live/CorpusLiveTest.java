package io.cqlrows.client.live;

import static io.cqlrows.client.live.LiveClients.get;
import static io.cqlrows.client.live.LiveClients.int32;
import static io.cqlrows.client.live.LiveCorpus.KEYSPACE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cqlrows.client.QueryResult;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.testing.Corpus;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The corpus's schema and data (every CQL type and vector element type Cassandra 5.0.6 accepts,
 * NULLs, empty values, extremes, unicode) in a live server, read by our {@link CqlClient} in v4, v4
 * + LZ4, v5 and v5 + LZ4, and by the Java driver: the decoded values must be equal.
 */
class CorpusLiveTest extends LiveTestSupport {
  /** Every table but {@code vec128}, whose 5,000 rows {@link PagingLiveTest} checks. */
  private static List<String> tables;

  @BeforeAll
  static void loadTheCorpus() throws InterruptedException {
    tables = LiveCorpus.load(session).stream().filter(t -> !t.equals("vec128")).toList();
  }

  @ParameterizedTest
  @EnumSource(Combo.class)
  void everyTableReadsAsTheDriverReadsIt(Combo combo) {
    client = LiveClients.connect(combo, group, "corpus");
    int rows = 0;
    for (String table : tables) {
      String cql = "SELECT * FROM " + KEYSPACE + "." + table;
      ObjectNode ours = LiveClients.query(client, cql, 5000);
      ObjectNode driver = LiveClients.driverQuery(session, SimpleStatement.newInstance(cql));
      LiveAssertions.assertSameRows(combo + " " + cql, driver, ours);
      rows += ours.get("rows").size();
    }
    assertEquals(15, tables.size(), "tables " + tables);
    assertEquals(288, rows, "rows in the 15 tables");
  }

  /**
   * A few cells checked against data.cql itself, so that the comparison with the driver cannot pass
   * with both sides reading something else: empty values, extremes, unicode.
   */
  @ParameterizedTest
  @EnumSource(Combo.class)
  void nullsEmptyValuesExtremesAndUnicodeAreWhatWasWritten(Combo combo) {
    client = LiveClients.connect(combo, group, "corpus");
    JsonNode rows =
        LiveClients.query(
                client,
                "SELECT id, c_int, c_text, c_blob, c_bigint,"
                    + " c_float, c_varint, c_date FROM "
                    + KEYSPACE
                    + ".scalars WHERE id IN (2, 3, 4, 6, 41)",
                0)
            .get("rows");
    assertEquals(Corpus.json("[2,null,null,null,null,null,null,null]"), rows.get(0));
    assertEquals(Corpus.json("[3,null,\"\",\"0x\",null,null,null,null]"), rows.get(1));
    assertEquals(
        Corpus.json(
            "[4,2147483647,\"max row\",\"0x00017f80feff\",\"9223372036854775807\","
                + "\"3.4028235E38\",\"1606938044258990275541962092341162602522202993782792835301376\","
                + "\"+5881580-07-11\"]"),
        rows.get(2));
    assertEquals("NaN", rows.get(3).get(5).asText());
    JsonNode unicode = LiveCorpus.bound(41); // [id, c_text, c_varchar, c_ascii, c_blob]
    assertEquals(unicode.get(1), rows.get(4).get(2));
    assertEquals(unicode.get(4), rows.get(4).get(3));
    assertEquals(300 * 2 + 2, rows.get(4).get(3).asText().length(), "a 300-byte blob");
  }

  /**
   * Prepared {@code SELECT}s executed with {@code Skip_metadata}: the server sends rows without
   * metadata, which the client decodes with the columns of the PREPARED result. They equal the
   * driver's rows of the same statements.
   */
  @ParameterizedTest
  @EnumSource(Combo.class)
  void preparedSelectsDecodeWithThePreparedMetadata(Combo combo) {
    client = LiveClients.connect(combo, group, "prepared");
    QueryResult[] outcome = new QueryResult[1];
    for (String table : tables) {
      String cql = "SELECT * FROM " + KEYSPACE + "." + table;
      PreparedResult prepared = get(client.prepare(cql));
      ObjectNode ours = LiveClients.execute(client, prepared, outcome);
      assertTrue(outcome[0].rows().metadata().noMetadata(), cql + ": No_metadata");
      ObjectNode driver = LiveClients.driverQuery(session, session.prepare(cql).bind());
      LiveAssertions.assertSameRows(combo + " EXECUTE " + cql, driver, ours);
    }

    String cql = "SELECT * FROM " + KEYSPACE + ".scalars WHERE id = ?";
    PreparedResult prepared = get(client.prepare(cql));
    PreparedStatement theirs = session.prepare(cql);
    for (int id : new int[] {1, 2, 3, 4, 5, 9, 16, 34, 41, 42, 43, 44, 1000}) {
      ObjectNode ours = LiveClients.execute(client, prepared, outcome, int32(id));
      assertTrue(outcome[0].rows().metadata().noMetadata(), cql + ": No_metadata");
      assertEquals(id == 1000 ? 0 : 1, ours.get("rows").size(), "id " + id);
      ObjectNode driver = LiveClients.driverQuery(session, theirs.bind(id));
      LiveAssertions.assertSameRows(combo + " EXECUTE " + cql + " id " + id, driver, ours);
    }
  }

  /**
   * {@code udt_alter} rows 1 and 2 were written before {@code ALTER TYPE evolving ADD f3 double}:
   * their frozen values still carry 2 fields on the wire, and read with the added field {@code
   * null}.
   */
  @ParameterizedTest
  @EnumSource(Combo.class)
  void udtValuesWrittenBeforeAlterTypeReadWithTheAddedFieldNull(Combo combo) {
    String cql = "SELECT id, f_ev, nf_ev FROM " + KEYSPACE + ".udt_alter WHERE id IN (1, 2, 3)";
    ByteBuffer raw =
        session
            .execute("SELECT f_ev FROM " + KEYSPACE + ".udt_alter WHERE id = 1")
            .one()
            .getBytesUnsafe("f_ev");
    assertEquals(2, fields(raw), "fields of row 1's frozen value on the wire");

    client = LiveClients.connect(combo, group, "udt-alter");
    JsonNode rows = LiveClients.query(client, cql, 0).get("rows");
    assertEquals(
        Corpus.json(
            "[1,{\"f1\":1,\"f2\":\"before alter\",\"f3\":null},"
                + "{\"f1\":11,\"f2\":\"before alter (non-frozen)\",\"f3\":\"1.25\"}]"),
        rows.get(0));
    assertEquals(Corpus.json("[2,{\"f1\":2,\"f2\":null,\"f3\":null},null]"), rows.get(1));
    assertEquals(
        Corpus.json(
            "[3,{\"f1\":3,\"f2\":\"after alter\",\"f3\":\"3.5\"},"
                + "{\"f1\":33,\"f2\":\"after\",\"f3\":\"33.5\"}]"),
        rows.get(2));
  }

  /** The number of {@code [int length][bytes]} fields in a serialized UDT value. */
  private static int fields(ByteBuffer value) {
    ByteBuffer b = value.duplicate();
    int n = 0;
    while (b.hasRemaining()) {
      int length = b.getInt();
      b.position(b.position() + Math.max(length, 0));
      n++;
    }
    return n;
  }
}
