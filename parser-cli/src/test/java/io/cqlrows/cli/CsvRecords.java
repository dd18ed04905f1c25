package io.cqlrows.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A strict RFC 4180 reader for the tests: records end with CRLF, fields are separated by commas, a
 * quoted field may hold commas, quotes (doubled) and line breaks. An unquoted empty field reads as
 * {@code null} and a quoted one ({@code ""}) as the empty string, so that NULL and the empty string
 * stay apart as the command writes them. Anything else (a bare LF, a quote inside an unquoted
 * field, text after a closing quote, a missing final CRLF) is an {@link IllegalArgumentException}
 * naming the offset. Stateless.
 */
final class CsvRecords {
  private CsvRecords() {}

  /** The records of {@code text}, each a list of fields. */
  static List<List<String>> parse(String text) {
    List<List<String>> records = new ArrayList<>();
    List<String> record = new ArrayList<>();
    int i = 0;
    int n = text.length();
    while (i < n) {
      String field;
      if (text.charAt(i) == '"') {
        StringBuilder quoted = new StringBuilder();
        i++;
        while (true) {
          if (i >= n) {
            throw new IllegalArgumentException("unterminated quoted field at offset " + i);
          }
          char c = text.charAt(i++);
          if (c != '"') {
            quoted.append(c);
          } else if (i < n && text.charAt(i) == '"') {
            quoted.append('"');
            i++;
          } else {
            break;
          }
        }
        field = quoted.toString();
      } else {
        int start = i;
        while (i < n && text.charAt(i) != ',' && text.charAt(i) != '\r') {
          char c = text.charAt(i);
          if (c == '"' || c == '\n') {
            throw new IllegalArgumentException("'" + c + "' in an unquoted field at offset " + i);
          }
          i++;
        }
        field = i == start ? null : text.substring(start, i);
      }
      record.add(field);
      if (i < n && text.charAt(i) == ',') {
        i++;
        if (i == n) {
          throw new IllegalArgumentException("no CRLF after the last field at offset " + i);
        }
        continue;
      }
      if (text.startsWith("\r\n", i)) {
        i += 2;
        records.add(record);
        record = new ArrayList<>();
        continue;
      }
      throw new IllegalArgumentException("expected ',' or CRLF at offset " + i);
    }
    if (!record.isEmpty()) {
      throw new IllegalArgumentException("no CRLF after the last record");
    }
    return records;
  }
}
