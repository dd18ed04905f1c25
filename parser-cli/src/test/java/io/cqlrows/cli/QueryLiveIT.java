package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.ColumnDefinitions;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.type.DataType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cqlrows.arrow.ArrowMapping;
import io.cqlrows.client.live.CassandraServer;
import io.cqlrows.client.live.LiveFixtures;
import io.cqlrows.core.sink.CanonicalJson;
import io.cqlrows.testing.Corpus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cqlrows query}, the packaged {@code target/cqlrows.jar} run as a process ({@link
 * JarProcess}), against the live tests' Cassandra 5.0.6 ({@link CassandraServer}) with the corpus
 * loaded ({@link LiveFixtures}: every CQL type, collections, UDTs, tuples, vectors, NULLs, empty
 * values, extremes, unicode). It checks that:
 *
 * <ul>
 *   <li>{@code --format jsonl} of {@code SELECT *} of every corpus table is, row for row and cell
 *       for cell, what the Apache Cassandra Java driver reads for the same statement, in the
 *       canonical JSON (but for {@code vec_counter.v}, which the driver cannot decode);
 *   <li>{@code --format csv} (read as RFC 4180) holds the JSONL values field for field, rendered as
 *       the CSV output renders them; {@code --format arrow} (read back with Arrow Java's {@code
 *       ArrowFileReader}) holds them cell for cell, with each batch's column metadata naming its
 *       table; {@code table} and {@code vertical} print every row of every page;
 *   <li>paging through {@code vec128} in pages of 100 returns each of its 5,000 ids once, every
 *       float as written;
 *   <li>a page of more than 64 MiB ({@code vector<float, 1536>}) with {@code --streaming} is
 *       exported to Arrow by a JVM whose heap is smaller than the page ({@value #STREAMING_HEAP}),
 *       in batches of at most 1,024 rows, every float as written; without {@code --streaming} the
 *       same JVM either copes or fails with an {@code OutOfMemoryError};
 *   <li>SIGINT in the middle of an Arrow export exits 130 and leaves a valid file of whole pages,
 *       the pages the command counted;
 *   <li>a syntax error and a missing table are one line on stderr, {@code cqlrows: Syntax_error: }
 *       and {@code cqlrows: Invalid: }, and exit status 1.
 * </ul>
 */
@Tag("live")
class QueryLiveIT {
  private static final String KEYSPACE = LiveFixtures.KEYSPACE;

  /**
   * The heap of the {@code --streaming} export of a 64 MiB page: less than the page, which without
   * {@code --streaming} is held whole.
   */
  static final String STREAMING_HEAP = "-Xmx64m";

  /** Rows per page in the SIGINT test. */
  private static final int INTERRUPT_PAGE = 10;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @TempDir static Path dir;

  private static CassandraServer server;
  private static CqlSession session;

  /** The corpus tables, in schema order, as CQL names (quoted where needed). */
  private static List<String> tables;

  /** Per table: the driver's {@code {"columns": .., "rows": ..}}. */
  private static final Map<String, ObjectNode> DRIVER = new LinkedHashMap<>();

  /** Per table: the driver's column definitions (for the CQL types). */
  private static final Map<String, ColumnDefinitions> COLUMNS = new LinkedHashMap<>();

  /** Per table: the rows of {@code --format jsonl}, from the first test that needs them. */
  private static Map<String, List<ObjectNode>> jsonl;

  @BeforeAll
  static void loadTheCorpus() throws InterruptedException {
    server = CassandraServer.get();
    session = LiveFixtures.openSession(server);
    tables = LiveFixtures.loadCorpus(session);
    for (String table : tables) {
      DRIVER.put(table, LiveFixtures.driverQuery(session, select(table)));
      COLUMNS.put(
          table,
          session
              .execute(SimpleStatement.newInstance(select(table)).setPageSize(1))
              .getColumnDefinitions());
    }
  }

  @AfterAll
  static void closeTheSession() {
    if (session != null) {
      session.close();
      session = null;
    }
  }

  private static String select(String table) {
    return "SELECT * FROM " + KEYSPACE + "." + table;
  }

  /** {@code SELECT *} of every corpus table, one statement each, in schema order. */
  private static List<String> everyTable() {
    return tables.stream().map(QueryLiveIT::select).toList();
  }

  /**
   * {@code java jvm -jar cqlrows.jar query --host H --port P args}: stderr is a file, so it has no
   * progress line, and each statement's row count is there.
   */
  private static List<String> args(List<String> args) {
    List<String> all =
        new ArrayList<>(
            List.of("query", "--host", server.host(), "--port", Integer.toString(server.port())));
    all.addAll(args);
    return all;
  }

  private static JarProcess.Result query(List<String> jvm, List<String> args)
      throws IOException, InterruptedException {
    return JarProcess.run(dir, jvm, Map.of(), args(args));
  }

  private static List<String> concat(List<String> options, List<String> statements) {
    List<String> all = new ArrayList<>(options);
    all.addAll(statements);
    return all;
  }

  /** The column names of a driver result. */
  private static List<String> names(ObjectNode driver) {
    List<String> names = new ArrayList<>();
    driver.get("columns").forEach(c -> names.add(c.get("name").asText()));
    return names;
  }

  /**
   * Each statement's count line on stderr, {@code [rows, pages]}, one per table; the rows are the
   * driver's.
   */
  private static List<long[]> assertOneCountPerTable(JarProcess.Result r) {
    List<long[]> counts = r.counts();
    assertEquals(tables.size(), counts.size(), r.err());
    for (int t = 0; t < tables.size(); t++) {
      assertEquals(
          DRIVER.get(tables.get(t)).get("rows").size(),
          counts.get(t)[0],
          tables.get(t) + ": rows on stderr");
    }
    return counts;
  }

  /** The JSON Lines of every table, run once and parsed; split by the counts on stderr. */
  private static synchronized Map<String, List<ObjectNode>> jsonl()
      throws IOException, InterruptedException {
    if (jsonl != null) {
      return jsonl;
    }
    JarProcess.Result r = query(List.of(), concat(List.of("--format", "jsonl"), everyTable()));
    assertEquals(0, r.status(), r.err());
    List<long[]> counts = assertOneCountPerTable(r);
    List<String> lines = r.lines();
    Map<String, List<ObjectNode>> rows = new LinkedHashMap<>();
    int at = 0;
    for (int t = 0; t < tables.size(); t++) {
      List<ObjectNode> table = new ArrayList<>();
      for (long i = 0; i < counts.get(t)[0]; i++) {
        table.add((ObjectNode) Corpus.json(lines.get(at++)));
      }
      rows.put(tables.get(t), table);
    }
    assertEquals(lines.size(), at, "every line belongs to a statement");
    jsonl = rows;
    return rows;
  }

  @Test
  void everyTableAsJsonLinesIsWhatTheDriverReads() throws Exception {
    Map<String, List<ObjectNode>> rows = jsonl();
    int total = 0;
    for (String table : tables) {
      ObjectNode driver = DRIVER.get(table);
      List<String> names = names(driver);
      ArrayNode arrays = NODES.arrayNode();
      for (ObjectNode line : rows.get(table)) {
        List<String> keys = new ArrayList<>();
        line.fieldNames().forEachRemaining(keys::add);
        assertEquals(names, keys, table + ": the keys of a line are the columns, in order");
        ArrayNode values = arrays.addArray();
        line.elements().forEachRemaining(values::add);
      }
      ObjectNode ours = NODES.objectNode();
      ours.set("columns", driver.get("columns"));
      ours.set("rows", arrays);
      LiveFixtures.assertSameRows("jsonl " + select(table), driver, ours);
      total += arrays.size();
    }
    assertEquals(16, tables.size(), "the corpus tables " + tables);
    assertEquals(288 + LiveFixtures.VEC128_ROWS, total, "rows in the corpus tables");
  }

  @Test
  void csvHoldsTheJsonLinesValuesFieldForField() throws Exception {
    Map<String, List<ObjectNode>> rows = jsonl();
    JarProcess.Result r = query(List.of(), concat(List.of("--format", "csv"), everyTable()));
    assertEquals(0, r.status(), r.err());
    assertOneCountPerTable(r);
    Iterator<List<String>> records = CsvRecords.parse(r.text()).iterator();
    long fields = 0;
    for (String table : tables) {
      List<String> names = names(DRIVER.get(table));
      assertTrue(records.hasNext(), table + ": header");
      assertEquals(names, records.next(), table + ": the header, once per statement");
      int n = 0;
      for (ObjectNode line : rows.get(table)) {
        assertTrue(records.hasNext(), table + ": row " + n);
        List<String> record = records.next();
        assertEquals(names.size(), record.size(), table + ": fields of row " + n);
        for (int c = 0; c < names.size(); c++) {
          assertEquals(
              csvField(line.get(names.get(c))),
              record.get(c),
              table + ": row " + n + ", column " + names.get(c));
          fields++;
        }
        n++;
      }
    }
    assertFalse(records.hasNext(), "records after the last table's rows");
    assertTrue(fields > 10_000, fields + " fields compared");
  }

  /**
   * A JSON Lines value as the CSV output writes it: NULL as no field ({@code null} here), a JSON
   * string without its quotes (escapes kept), anything else as its canonical JSON.
   */
  private static String csvField(JsonNode value) {
    if (value.isNull()) {
      return null;
    }
    String json = canonical(value);
    return value.isTextual() ? json.substring(1, json.length() - 1) : json;
  }

  /** The canonical JSON text of a parsed value: strings as {@link CanonicalJson} writes them. */
  private static String canonical(JsonNode value) {
    StringBuilder out = new StringBuilder();
    appendCanonical(out, value);
    return out.toString();
  }

  private static void appendCanonical(StringBuilder out, JsonNode value) {
    if (value.isTextual()) {
      CanonicalJson.appendString(out, value.textValue());
    } else if (value.isArray()) {
      out.append('[');
      for (int i = 0; i < value.size(); i++) {
        appendCanonical(i > 0 ? out.append(',') : out, value.get(i));
      }
      out.append(']');
    } else if (value.isObject()) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<String, JsonNode> f : value.properties()) {
        CanonicalJson.appendString(first ? out : out.append(','), f.getKey());
        appendCanonical(out.append(':'), f.getValue());
        first = false;
      }
      out.append('}');
    } else {
      out.append(value.asText()); // null, true, false, an integer
    }
  }

  @Test
  void arrowHoldsTheJsonLinesValuesCellForCell() throws Exception {
    Map<String, List<ObjectNode>> rows = jsonl();
    Path file = dir.resolve("corpus.arrow");
    JarProcess.Result r =
        query(
            List.of(),
            concat(List.of("--format", "arrow", "--output", file.toString()), everyTable()));
    assertEquals(0, r.status(), r.err());
    assertOneCountPerTable(r);

    Map<String, String> byInternalName = new LinkedHashMap<>();
    tables.forEach(
        t ->
            byInternalName.put(
                t.startsWith("\"") ? t.substring(1, t.length() - 1).replace("\"\"", "\"") : t, t));
    // a statement with other columns goes on in corpus-2.arrow, corpus-3.arrow, ...
    List<Path> files = new ArrayList<>();
    for (Path f = file;
        Files.exists(f);
        f = dir.resolve("corpus-" + (files.size() + 1) + ".arrow")) {
      files.add(f);
    }
    Map<String, Integer> read = new LinkedHashMap<>();
    long cells = 0;
    for (Path f : files) {
      try (RootAllocator allocator = new RootAllocator();
          ArrowFileReader in = new ArrowFileReader(Files.newByteChannel(f), allocator)) {
        VectorSchemaRoot root = in.getVectorSchemaRoot();
        for (ArrowBlock block : in.getRecordBlocks()) {
          assertTrue(in.loadRecordBatch(block), f + ": a batch");
          Field first = root.getSchema().getFields().get(0);
          assertEquals(KEYSPACE, first.getMetadata().get(ArrowMapping.CQL_KEYSPACE));
          String table = byInternalName.get(first.getMetadata().get(ArrowMapping.CQL_TABLE));
          assertNotNull(table, f + ": a batch of " + first.getMetadata());
          List<String> names = names(DRIVER.get(table));
          List<String> arrowNames = new ArrayList<>();
          root.getSchema().getFields().forEach(field -> arrowNames.add(field.getName()));
          assertEquals(names, arrowNames, table + ": the Arrow columns");
          ColumnDefinitions definitions = COLUMNS.get(table);
          int offset = read.getOrDefault(table, 0);
          List<ObjectNode> expected = rows.get(table);
          assertTrue(offset + root.getRowCount() <= expected.size(), table + ": too many rows");
          for (int row = 0; row < root.getRowCount(); row++) {
            ObjectNode line = expected.get(offset + row);
            for (int c = 0; c < names.size(); c++) {
              String where = table + ": row " + (offset + row) + ", column " + names.get(c);
              DataType type = definitions.get(c).getType();
              assertEquals(
                  line.get(names.get(c)), ArrowCells.json(root.getVector(c), row, type), where);
              cells++;
            }
          }
          read.put(table, offset + root.getRowCount());
        }
      }
    }
    for (String table : tables) {
      assertEquals(rows.get(table).size(), read.getOrDefault(table, 0), table + ": Arrow rows");
    }
    assertTrue(files.size() > 1, files.size() + " Arrow files: one per schema");
    assertTrue(cells > 10_000, cells + " cells compared");
  }

  @Test
  void tableAndVerticalPrintEveryRowOfEveryPage() throws Exception {
    for (String format : new String[] {"table", "vertical"}) {
      JarProcess.Result r =
          JarProcess.run(
              dir,
              List.of(),
              Map.of("COLUMNS", "120"),
              args(concat(List.of("--format", format), everyTable())));
      assertEquals(0, r.status(), format + ": " + r.err());
      List<long[]> counts = assertOneCountPerTable(r);
      List<String> lines = r.lines();
      int[] at = {0};
      int verticalStatements = 0;
      for (int t = 0; t < tables.size(); t++) {
        List<String> names = names(DRIVER.get(tables.get(t)));
        boolean blocks =
            statement(lines, at, names, counts.get(t)[0], format.equals("vertical"), tables.get(t));
        verticalStatements += blocks ? 1 : 0;
      }
      assertEquals(lines.size(), at[0], format + ": lines after the last statement");
      assertTrue(verticalStatements > 0, format + ": wide results print vertically");
    }
  }

  /**
   * Reads the table output of one statement of {@code n} rows at {@code at}, all its pages: {@code
   * -[ RECORD i ]} blocks numbered 1 to n of one line per column, or a header, a rule and n lines
   * (a result of no rows prints a header and a rule, or nothing as blocks). Moves {@code at} past
   * it and returns whether it printed blocks.
   */
  private static boolean statement(
      List<String> lines, int[] at, List<String> names, long n, boolean vertical, String table) {
    String where = table + " at line " + (at[0] + 1);
    boolean next = at[0] < lines.size();
    boolean blocks = next && lines.get(at[0]).startsWith("-[ RECORD 1 ]");
    String header = TableSink.cut(names.get(0), TableSink.MAX_CELL);
    boolean headed =
        next
            && !blocks
            && lines.get(at[0]).startsWith(header)
            && at[0] + 1 < lines.size()
            && lines.get(at[0] + 1).matches("[- ]+");
    if (vertical || blocks || (n == 0 && !headed)) {
      int maxCell = vertical ? TableSink.MAX_VERTICAL_CELL : TableSink.MAX_CELL;
      for (int record = 1; record <= n; record++) {
        assertTrue(
            lines.get(at[0]++).startsWith("-[ RECORD " + record + " ]"),
            where + ": record " + record);
        for (String name : names) {
          String line = lines.get(at[0]++);
          String label = TableSink.cut(name, maxCell);
          assertTrue(
              line.startsWith(label) && line.indexOf(" |", label.length()) >= 0,
              where + ": '" + line + "' is the line of " + name);
        }
      }
      return n > 0;
    }
    assertTrue(headed, where + ": the header and the rule");
    at[0] += 2 + (int) n;
    assertTrue(at[0] <= lines.size(), where + ": " + n + " rows");
    return false;
  }

  @Test
  void pagesOf100ReturnEveryVec128IdOnce() throws Exception {
    JarProcess.Result r =
        query(
            List.of(),
            List.of(
                "--format",
                "jsonl",
                "--page-size",
                "100",
                "SELECT id, v FROM " + KEYSPACE + ".vec128"));
    assertEquals(0, r.status(), r.err());
    List<long[]> counts = r.counts();
    assertEquals(1, counts.size(), r.err());
    assertEquals(LiveFixtures.VEC128_ROWS, counts.get(0)[0], r.err());
    // Cassandra sets Has_more_pages on the 50th full page; the 51st is empty
    assertTrue(counts.get(0)[1] == 50 || counts.get(0)[1] == 51, r.err());
    List<String> lines = r.lines();
    assertEquals(LiveFixtures.VEC128_ROWS, lines.size());
    BitSet seen = new BitSet();
    for (String text : lines) {
      JsonNode line = Corpus.json(text);
      int id = line.get("id").intValue();
      assertTrue(id >= 0 && id < LiveFixtures.VEC128_ROWS && !seen.get(id), "id " + id);
      seen.set(id);
      float[] expected = LiveFixtures.vec128(id);
      JsonNode v = line.get("v");
      assertEquals(expected.length, v.size(), "id " + id);
      for (int j = 0; j < expected.length; j++) {
        assertEquals(
            Float.floatToRawIntBits(expected[j]),
            Float.floatToRawIntBits(Float.parseFloat(v.get(j).textValue())),
            "id " + id + ", v[" + j + "] = " + v.get(j));
      }
    }
    assertEquals(LiveFixtures.VEC128_ROWS, seen.cardinality());
  }

  @Test
  void aPageOfMoreThan64MiBStreamsToArrowInASmallHeap() throws Exception {
    String table = KEYSPACE + ".big_page_cli";
    int rows = LiveFixtures.BIG_PAGE_ROWS;
    LiveFixtures.writeBigPage(session, table, rows);
    Path streamedFile = dir.resolve("big-streamed.arrow");
    long start = System.nanoTime();
    JarProcess.Result streamed =
        query(
            List.of(STREAMING_HEAP),
            List.of(
                "--streaming",
                "--page-size",
                Integer.toString(rows + 1000),
                "--format",
                "arrow",
                "--output",
                streamedFile.toString(),
                "SELECT id, v FROM " + table));
    long took = System.nanoTime() - start;
    assertEquals(0, streamed.status(), "--streaming in " + STREAMING_HEAP + ": " + streamed.err());
    assertEquals(List.of(rows + ":1"), countsOf(streamed), "one page: " + streamed.err());
    long size = Files.size(streamedFile);
    assertTrue(size > 64L << 20, size + " bytes of Arrow");
    assertEquals(rows, assertBigPage(streamedFile, 1024));
    System.err.printf(
        "[cqlrows] --streaming: one page of %d rows (%.1f MiB of Arrow) exported"
            + " with %s in %d ms%n",
        rows, size / 1048576.0, STREAMING_HEAP, took / 1_000_000);

    // Without --streaming the page is held whole. An OutOfMemoryError fails the page (one line
    // naming it) or, where it hits the event loop elsewhere, leaves the page unanswered until
    // --timeout (with the error's trace); which one depends on where the heap runs out.
    Path wholeFile = dir.resolve("big-whole.arrow");
    JarProcess.Result whole =
        query(
            List.of(STREAMING_HEAP),
            List.of(
                "--timeout",
                "15",
                "--page-size",
                Integer.toString(rows + 1000),
                "--format",
                "arrow",
                "--output",
                wholeFile.toString(),
                "SELECT id, v FROM " + table));
    if (whole.status() == 0) {
      assertEquals(List.of(rows + ":1"), countsOf(whole), whole.err());
      assertEquals(rows, assertBigPage(wholeFile, rows));
    } else {
      assertEquals(1, whole.status(), whole.err());
      assertTrue(whole.err().contains("OutOfMemoryError"), whole.err());
    }
    System.err.printf(
        "[cqlrows] without --streaming in %s: exit status %d%n", STREAMING_HEAP, whole.status());
  }

  /** {@code rows:pages} of each count line. */
  private static List<String> countsOf(JarProcess.Result r) {
    return r.counts().stream().map(c -> c[0] + ":" + c[1]).toList();
  }

  /**
   * Reads a big page export: batches of at most {@code maxBatchRows} rows, every id once, every
   * float of every vector as {@link LiveFixtures#bigPageRow} wrote it, bit for bit. Returns the
   * rows.
   */
  private static int assertBigPage(Path file, int maxBatchRows) throws IOException {
    int dimension = LiveFixtures.BIG_PAGE_DIMENSION;
    BitSet seen = new BitSet();
    int rows = 0;
    try (RootAllocator allocator = new RootAllocator();
        ArrowFileReader in = new ArrowFileReader(Files.newByteChannel(file), allocator)) {
      VectorSchemaRoot root = in.getVectorSchemaRoot();
      while (in.loadNextBatch()) {
        assertTrue(root.getRowCount() <= maxBatchRows, root.getRowCount() + " rows in a batch");
        IntVector ids = (IntVector) root.getVector("id");
        FixedSizeListVector v = (FixedSizeListVector) root.getVector("v");
        assertEquals(dimension, v.getListSize());
        Float4Vector floats = (Float4Vector) v.getDataVector();
        for (int r = 0; r < root.getRowCount(); r++) {
          int id = ids.get(r);
          if (id < 0 || id >= LiveFixtures.BIG_PAGE_ROWS || seen.get(id)) {
            fail("row " + (rows + r) + " has id " + id + (seen.get(id) ? " again" : ""));
          }
          seen.set(id);
          assertFalse(v.isNull(r), "id " + id);
          float[] expected = LiveFixtures.bigPageRow(id);
          for (int j = 0; j < dimension; j++) {
            float actual = floats.get(r * dimension + j);
            if (Float.floatToRawIntBits(actual) != Float.floatToRawIntBits(expected[j])) {
              fail("id " + id + ", v[" + j + "] = " + actual + " (expected: " + expected[j] + ")");
            }
          }
        }
        rows += root.getRowCount();
      }
    }
    assertEquals(rows, seen.cardinality());
    return rows;
  }

  @Test
  void sigintMidExportExits130AndLeavesAValidFileOfWholePages() throws Exception {
    Path file = dir.resolve("interrupted.arrow");
    String cql = "SELECT id, v FROM " + KEYSPACE + ".vec128";
    int statements = 4; // 2,000 pages in all: the export outlasts the wait below
    List<String> options =
        new ArrayList<>(
            List.of(
                "--format",
                "arrow",
                "--output",
                file.toString(),
                "--page-size",
                Integer.toString(INTERRUPT_PAGE)));
    for (int i = 0; i < statements; i++) {
      options.add(cql);
    }
    JarProcess.Started run = JarProcess.start(dir, List.of(), Map.of(), args(options));
    // 20 pages of 10 rows of an int and 128 floats
    long written = 20L * INTERRUPT_PAGE * (4 + 128 * 4);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (run.process().isAlive()
        && System.nanoTime() < deadline
        && !(Files.exists(file) && Files.size(file) > written)) {
      Thread.sleep(10);
    }
    assertTrue(
        run.process().isAlive(),
        "the export still runs when "
            + written
            + " bytes are written: "
            + Files.readString(run.err()));
    Process kill = new ProcessBuilder("kill", "-INT", Long.toString(run.process().pid())).start();
    assertEquals(0, kill.waitFor());
    JarProcess.Result r = run.await();
    assertEquals(130, r.status(), r.err());

    long counted = r.counts().stream().mapToLong(c -> c[0]).sum();
    int batches = 0;
    long rows = 0;
    try (RootAllocator allocator = new RootAllocator();
        ArrowFileReader in = new ArrowFileReader(Files.newByteChannel(file), allocator)) {
      VectorSchemaRoot root = in.getVectorSchemaRoot();
      for (ArrowBlock block : in.getRecordBlocks()) {
        assertTrue(in.loadRecordBatch(block));
        int n = root.getRowCount();
        // a page is whole: 10 rows, or none (the empty page after the last full one)
        assertTrue(n == INTERRUPT_PAGE || n == 0, "batch " + batches + ": " + n + " rows");
        IntVector ids = (IntVector) root.getVector("id");
        FieldVector v = root.getVector("v");
        for (int i = 0; i < n; i++) {
          float[] expected = LiveFixtures.vec128(ids.get(i));
          assertEquals(
              canonicalFloats(expected),
              ArrowCells.json(v, i, COLUMNS.get("vec128").get("v").getType()),
              "id " + ids.get(i));
        }
        rows += n;
        batches++;
      }
    }
    System.err.printf(
        "[cqlrows] SIGINT: exit status 130 after %d pages (%d rows)%n", batches, rows);
    assertEquals(counted, rows, "the rows the command counted on stderr: " + r.err());
    assertTrue(rows >= 10L * INTERRUPT_PAGE, rows + " rows before SIGINT");
    assertTrue(rows < (long) statements * LiveFixtures.VEC128_ROWS, rows + " rows: interrupted");
  }

  private static JsonNode canonicalFloats(float[] v) {
    ArrayNode out = NODES.arrayNode();
    for (float f : v) {
      out.add(Float.toString(f));
    }
    return out;
  }

  @Test
  void serverErrorsAreOneLineWithTheirNameAndExitOne() throws Exception {
    JarProcess.Result syntax = query(List.of(), List.of("SELEC * FROM " + KEYSPACE + ".scalars"));
    assertEquals(1, syntax.status(), syntax.err());
    assertEquals(1, syntax.errLines().size(), syntax.err());
    assertTrue(syntax.err().startsWith("cqlrows: Syntax_error: "), syntax.err());
    assertEquals("", syntax.text(), "nothing on stdout");

    JarProcess.Result missing =
        query(List.of(), List.of("SELECT * FROM " + KEYSPACE + ".no_such_table"));
    assertEquals(1, missing.status(), missing.err());
    assertEquals(1, missing.errLines().size(), missing.err());
    assertTrue(missing.err().startsWith("cqlrows: Invalid: "), missing.err());
    assertEquals("", missing.text(), "nothing on stdout");
  }
}
