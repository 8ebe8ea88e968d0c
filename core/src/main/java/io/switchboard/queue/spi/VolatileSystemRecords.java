package io.switchboard.queue.spi;

import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;

/** {@link SystemRecords} in a map: what an engine without a store keeps for its lifetime. */
final class VolatileSystemRecords implements SystemRecords {

  private final ConcurrentSkipListMap<String, byte[]> records = new ConcurrentSkipListMap<>();

  @Override
  public Optional<byte[]> get(String key) {
    return Optional.ofNullable(records.get(SystemRecords.checkKey(key))).map(byte[]::clone);
  }

  @Override
  public void put(String key, byte[] value) {
    records.put(SystemRecords.checkKey(key), SystemRecords.checkValue(value).clone());
  }

  @Override
  public byte[] putIfAbsent(String key, byte[] value) {
    byte[] copy = SystemRecords.checkValue(value).clone();
    byte[] there = records.putIfAbsent(SystemRecords.checkKey(key), copy);
    return (there == null ? copy : there).clone();
  }

  @Override
  public boolean delete(String key) {
    return records.remove(SystemRecords.checkKey(key)) != null;
  }

  @Override
  public SortedMap<String, byte[]> list(String prefix) {
    SortedMap<String, byte[]> out = new TreeMap<>();
    for (Map.Entry<String, byte[]> e :
        records.tailMap(SystemRecords.checkPrefix(prefix)).entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        break;
      }
      out.put(e.getKey(), e.getValue().clone());
    }
    return out;
  }
}
