@NullMarked
package io.switchboard.bench.auth;

import org.jspecify.annotations.NullMarked;
