package io.cqlrows.core;

import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds RESULT/ROWS bodies for tests (native_protocol_v5.spec section 4.2.5.2): {@code kind,
 * flags, columns_count, [paging_state], [new_metadata_id], [ks, table], col_spec*, rows_count,
 * cells}. Types are given as {@code [option]} hex (section 4.2.5.2 lists the ids), built with
 * {@link #opt}, {@link #list}, {@link #custom} and friends. The caller owns every {@code ByteBuf}
 * returned and releases it.
 */
public final class RowsBodies {
  public static final String MARSHAL = "org.apache.cassandra.db.marshal.";

  private RowsBodies() {}

  // ---- [option] hex ----

  /** A native type id. */
  public static String opt(int id) {
    return String.format("%04x", id);
  }

  public static String list(String element) {
    return "0020" + element;
  }

  public static String set(String element) {
    return "0022" + element;
  }

  public static String map(String key, String value) {
    return "0021" + key + value;
  }

  /** {@code tuple<components...>}. */
  public static String tuple(String... components) {
    StringBuilder sb = new StringBuilder("0031").append(String.format("%04x", components.length));
    for (String c : components) {
      sb.append(c);
    }
    return sb.toString();
  }

  /** A UDT; {@code fields} alternates field name and field type option hex. */
  public static String udt(String keyspace, String name, String... fields) {
    StringBuilder sb = new StringBuilder("0030").append(str(keyspace)).append(str(name));
    sb.append(String.format("%04x", fields.length / 2));
    for (int i = 0; i < fields.length; i += 2) {
      sb.append(str(fields[i])).append(fields[i + 1]);
    }
    return sb.toString();
  }

  /** A custom type (id 0x0000) with its class name. */
  public static String custom(String className) {
    return "0000" + str(className);
  }

  /**
   * The class name Cassandra sends for {@code vector<element, dimension>}, with a space on each
   * side of the comma before the dimension (docs/protocol.md, "Custom types").
   */
  public static String vectorClass(String elementClass, int dimension) {
    String e = elementClass.contains(".") ? elementClass : MARSHAL + elementClass;
    return MARSHAL + "VectorType(" + e + " , " + dimension + ")";
  }

  /** {@code vector<element, dimension>} as an [option]: a custom type. */
  public static String vector(String elementClass, int dimension) {
    return custom(vectorClass(elementClass, dimension));
  }

  /** {@code [string]} as hex. */
  public static String str(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    StringBuilder sb = new StringBuilder(String.format("%04x", b.length));
    for (byte x : b) {
      sb.append(String.format("%02x", x));
    }
    return sb.toString();
  }

  // ---- bodies ----

  /** One column {@code v} of a native type, one row with this cell ({@code null}: a NULL cell). */
  public static ByteBuf single(int optionId, String cellHex) {
    return singleOption(opt(optionId), cellHex);
  }

  /** One column {@code v} of a custom type (e.g. a vector), one row with this cell. */
  public static ByteBuf single(String className, String cellHex) {
    return singleOption(custom(className), cellHex);
  }

  /** One column {@code v} whose type is given as [option] hex, one row with this cell. */
  public static ByteBuf singleOption(String optionHex, String cellHex) {
    return rows().column("v", optionHex).row(cellHex).build();
  }

  /** A general ROWS body, by default with Global_tables_spec {@code ks.t}. */
  public static Builder rows() {
    return new Builder();
  }

  /** Builds one ROWS body. */
  public static final class Builder {
    private int flags = RowsMetadata.FLAG_GLOBAL_TABLES_SPEC;
    private final List<String[]> columns = new ArrayList<>();
    private Integer columnsCount;
    private String pagingState;
    private String newMetadataId;
    private Integer rowCount;
    private int rows;
    private final StringBuilder cells = new StringBuilder();
    private String trailing = "";

    /** A column of a native type. */
    public Builder column(String name, int optionId) {
      return column(name, opt(optionId));
    }

    /** A column whose type is [option] hex. */
    public Builder column(String name, String optionHex) {
      columns.add(new String[] {name, optionHex});
      return this;
    }

    /** ORs extra bits into {@code flags}. */
    public Builder flags(int extra) {
      flags |= extra;
      return this;
    }

    /** Per-column keyspace and table instead of Global_tables_spec. */
    public Builder perColumnTables() {
      flags &= ~RowsMetadata.FLAG_GLOBAL_TABLES_SPEC;
      return this;
    }

    /** Has_more_pages with this paging_state. */
    public Builder pagingState(String hex) {
      flags |= RowsMetadata.FLAG_HAS_MORE_PAGES;
      pagingState = hex;
      return this;
    }

    /** Metadata_changed with this new_metadata_id. */
    public Builder newMetadataId(String hex) {
      flags |= RowsMetadata.FLAG_METADATA_CHANGED;
      newMetadataId = hex;
      return this;
    }

    /** No_metadata with this columns_count: no col_specs are written. */
    public Builder noMetadata(int count) {
      flags = (flags | RowsMetadata.FLAG_NO_METADATA) & ~RowsMetadata.FLAG_GLOBAL_TABLES_SPEC;
      columnsCount = count;
      return this;
    }

    /** Overrides {@code columns_count}. */
    public Builder columnsCount(int count) {
      columnsCount = count;
      return this;
    }

    /** One row; each cell is hex ({@code ""}: empty value) or {@code null} (NULL). */
    public Builder row(String... cellHex) {
      for (String c : cellHex) {
        cell(c);
      }
      rows++;
      return this;
    }

    /** One [bytes] cell without counting a row (with {@link #rowCount}). */
    public Builder cell(String hex) {
      CqlBytes b = CqlBytes.create();
      if (hex == null) {
        b.nullCell();
      } else {
        b.bytes(hex);
      }
      cells.append(b.toHex());
      return this;
    }

    /** Raw bytes in the rows content (e.g. a cell length of -2). */
    public Builder raw(String hex) {
      cells.append(hex.replace(" ", ""));
      return this;
    }

    /** Overrides {@code rows_count}. */
    public Builder rowCount(int n) {
      rowCount = n;
      return this;
    }

    /** Bytes after the last row. */
    public Builder trailing(String hex) {
      trailing = hex.replace(" ", "");
      return this;
    }

    /** The metadata part only ({@code <flags>...col_spec*}), as written inside PREPARED. */
    public CqlBytes metadata(CqlBytes b) {
      b.int32(flags).int32(columnsCount != null ? columnsCount : columns.size());
      if (pagingState != null) {
        b.bytes(pagingState);
      }
      if (newMetadataId != null) {
        byte[] id = CqlBytes.create().hex(newMetadataId).toArray();
        b.int16(id.length).hex(newMetadataId);
      }
      if ((flags & RowsMetadata.FLAG_NO_METADATA) != 0) {
        return b;
      }
      boolean global = (flags & RowsMetadata.FLAG_GLOBAL_TABLES_SPEC) != 0;
      if (global) {
        b.string("ks").string("t");
      }
      for (String[] c : columns) {
        if (!global) {
          b.string("ks").string("t");
        }
        b.string(c[0]).hex(c[1]);
      }
      return b;
    }

    /** The whole body. */
    public CqlBytes bytes() {
      CqlBytes b = metadata(CqlBytes.create().int32(RowsResult.KIND));
      b.int32(rowCount != null ? rowCount : rows);
      return b.hex(cells.toString()).hex(trailing);
    }

    public String hex() {
      return bytes().toHex();
    }

    /** The body, in a new buffer that the caller owns and releases. */
    public ByteBuf build() {
      return bytes().toByteBuf();
    }
  }
}
