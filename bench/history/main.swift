print("bench-history: placeholder")
