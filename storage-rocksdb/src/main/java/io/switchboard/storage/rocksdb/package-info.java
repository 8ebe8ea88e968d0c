@NullMarked
package io.switchboard.storage.rocksdb;

import org.jspecify.annotations.NullMarked;
