import sys

print("filling", sys.argv[1])
