print("nk")
