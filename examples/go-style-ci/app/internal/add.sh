#!/bin/sh
add() { echo $(($1 + $2)); }
