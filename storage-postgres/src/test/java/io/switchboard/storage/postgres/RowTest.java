package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.MessageState;
import io.switchboard.queue.spi.MessageRecord;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A message's row has one list of columns ({@code Row.COLUMNS}) from which its reads, the history's
 * reads and inserts are made, and one hand-written form, {@link Row#stateRecord}, which shows it.
 * These check that the list is the schema's, and that each column reaches the form it belongs in:
 * read from a result whose every column holds a value of its own, the row keeps each value for
 * {@code sb_history} in {@link Row#KEPT_COLS}'s order, and its state record carries each column of
 * its component's name.
 */
class RowTest {

  /** The columns of a table, as the database has them after every migration. */
  private static Set<String> columns(DataSource ds, String table) throws SQLException {
    Set<String> out = new TreeSet<>();
    try (Connection c = ds.getConnection();
        ResultSet rs = c.getMetaData().getColumns(null, null, table, null)) {
      while (rs.next()) {
        out.add(rs.getString("COLUMN_NAME"));
      }
    }
    return out;
  }

  private static List<String> list(String cols) {
    return Arrays.asList(cols.split(", "));
  }

  @Test
  void theRowsColumns_areTheSchemas() throws SQLException {
    DataSource ds = TestDatabase.pool();
    Schema.migrate(ds);
    Set<String> message = columns(ds, "sb_message");
    // the queue's, what queries select by, not part of the message: its id, the indexed attributes'
    // values (made from attrs at the write) and whether the queue is LIFO (for a partial index)
    message.removeAll(List.of("qid", "idx", "lifo"));
    assertEquals(message, new TreeSet<>(list(Row.COLS)), "sb_message");
    Set<String> history = columns(ds, "sb_history");
    history.removeAll(List.of("qid", "state", "until")); // the history entry's own
    assertEquals(history, new TreeSet<>(list(Row.KEPT_COLS)), "sb_history");
  }

  /** A result with a value of its own in each column: the column's index, in that column's type. */
  private static ResultSet distinctValues() {
    return (ResultSet)
        Proxy.newProxyInstance(
            RowTest.class.getClassLoader(),
            new Class<?>[] {ResultSet.class},
            (proxy, method, args) -> {
              int i = (Integer) args[0];
              return switch (method.getName()) {
                case "getLong" -> 1_000L + i;
                case "getInt" -> 1_000 + i;
                case "getBoolean" -> true;
                case "getString" -> "text " + i;
                case "getBytes" -> new byte[] {(byte) i};
                default -> throw new UnsupportedOperationException(method.getName());
              };
            });
  }

  /** Each column's value in {@link #distinctValues}, by column name. */
  private static Map<String, Object> valuesByColumn() {
    Map<String, Object> out = new HashMap<>();
    List<String> cols = list(Row.COLS);
    ResultSet rs = distinctValues();
    for (int i = 0; i < cols.size(); i++) {
      try {
        Object v =
            switch (cols.get(i)) {
              case "priority", "lease_epoch", "receive_count" -> rs.getInt(i + 1);
              case "group_id", "dedup_id", "dl_source" -> rs.getString(i + 1);
              case "body", "attrs" -> rs.getBytes(i + 1);
              case "leased" -> rs.getBoolean(i + 1);
              default -> rs.getLong(i + 1);
            };
        out.put(cols.get(i), v);
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
    return out;
  }

  @Test
  void eachColumn_isKeptForTheHistory_inItsPlace() throws SQLException {
    Row r = Row.read(distinctValues());
    Map<String, Object> values = valuesByColumn();
    List<@Nullable Object> expected = new ArrayList<>();
    for (String c : list(Row.KEPT_COLS)) {
      expected.add(values.get(c));
    }
    @Nullable Object[] kept = r.kept();
    assertEquals(expected.size(), kept.length);
    for (int i = 0; i < kept.length; i++) {
      if (kept[i] instanceof byte[] b) {
        assertArrayEquals((byte[]) expected.get(i), b, list(Row.KEPT_COLS).get(i));
      } else {
        assertEquals(expected.get(i), kept[i], list(Row.KEPT_COLS).get(i));
      }
    }
  }

  /** The column of each component of the state; the state itself is the one shown. */
  private static String column(String component) {
    return switch (component) {
      case "deadLetterSource" -> "dl_source";
      default -> component.replaceAll("([A-Z])", "_$1").toLowerCase(java.util.Locale.ROOT);
    };
  }

  @Test
  void eachComponentOfTheState_isItsColumn() throws Exception {
    Row r = Row.read(distinctValues());
    Map<String, Object> values = valuesByColumn();
    MessageRecord.StateRecord s = r.stateRecord(MessageState.IN_FLIGHT);
    assertEquals(MessageRecord.IN_FLIGHT, s.state());
    for (RecordComponent c : MessageRecord.StateRecord.class.getRecordComponents()) {
      if (c.getName().equals("state")) {
        continue;
      }
      assertEquals(values.get(column(c.getName())), c.getAccessor().invoke(s), c.getName());
    }
  }
}
